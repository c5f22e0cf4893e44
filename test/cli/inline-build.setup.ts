// A build run in this process (runInProcess, buildShelf) compresses on the main thread unless the
// test asks for worker threads (--jobs 2, { jobs: 2 }). The CLI's default, a thread per core,
// starts two threads per build here, and each loads the build's modules (zod, yaml, …) afresh:
// ~0.8 s of CPU a thread, for test shelves that take milliseconds to compress. Builds on worker
// threads keep tests of their own: build-claude-plugin.test.ts and build-incremental.test.ts
// (threads against inline, byte for byte), build.test.ts (threads in another time zone),
// build-cli.test.ts (the bundled worker). Child processes (run-cli.ts) run the real bin and keep
// its real default (one thread per core).
import { vi } from "vitest";

vi.mock(import("../../src/cli/lib/skill-objects-pool.ts"), async (importOriginal) => ({ ...(await importOriginal()), defaultJobs: () => 1 }));
