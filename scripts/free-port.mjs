// Prints a loopback TCP port free right now (the OS picks it), for the shell checks that start a
// local Worker (.ci/run's npm start check, scripts/check-team-repo.sh): a fixed port collides with
// other runs on a shared machine. The port can be taken again before the caller binds it, so each
// caller retries when its server refuses the port.
import { createServer } from "node:net";

const server = createServer();
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(typeof address === "object" && address !== null ? address.port : "");
  server.close();
});
