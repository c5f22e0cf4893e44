// A build worker thread: stages skills (skill-objects.ts) as the main thread sends them, so a
// fresh build compresses on every core. Errors go back as messages; the main thread decides.
import { parentPort } from "node:worker_threads";
import { StagingError, stageSkillObjects, type StageTask } from "./skill-objects.ts";

parentPort?.on("message", async (message: { id: number; task: StageTask }) => {
  try {
    parentPort!.postMessage({ id: message.id, result: await stageSkillObjects(message.task) });
  } catch (error) {
    parentPort!.postMessage({
      id: message.id,
      error: { message: (error as Error).message, kind: error instanceof StagingError ? error.kind : null, stack: (error as Error).stack },
    });
  }
});
