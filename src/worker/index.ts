// The repository's Worker (wrangler.toml `main`): the app with its defaults. A team's repository
// deploys the same app from the package instead (`skillshelf/worker`, package.ts; docs/teams.md).
import { createShelfApp } from "./app.ts";

export default createShelfApp();
