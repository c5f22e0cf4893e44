// Placeholder while this group is being written (issue 13): it binds no route yet.
import type { ApiApp } from "./routes.ts";

export function trustRoutes(_app: ApiApp): void {}
