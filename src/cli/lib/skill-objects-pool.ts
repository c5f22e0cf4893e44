// Runs skill staging on worker threads (one per core by default), or inline with one job. The
// worker's script sits beside this module: skill-objects-worker.ts in a checkout, or
// skill-objects-worker.mjs beside the CLI bundle (npm run build:cli writes both).
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { StagingError, stageSkillObjects, type StageResult, type StageTask } from "./skill-objects.ts";

/** The worker script's URL: the .ts source in a checkout, the bundled .mjs in a package. */
export const WORKER_URL = new URL(import.meta.url.endsWith(".ts") ? "./skill-objects-worker.ts" : "./skill-objects-worker.mjs", import.meta.url);

/** The default number of jobs: one per core the process may use. */
export function defaultJobs(): number {
  return availableParallelism();
}

interface Pending {
  resolve: (result: StageResult) => void;
  reject: (error: Error) => void;
}

/** A fixed set of workers taking tasks in order; `jobs <= 1` stages inline on the main thread. */
export class SkillObjectsPool {
  readonly #jobs: number;
  readonly #workers: { worker: Worker; busy: number }[] = [];
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  #closing = false;
  /** Set when a worker thread died: every pending and later task fails with it, none waits forever. */
  #broken: Error | null = null;

  /** Workers start with the first task, so a build that compresses nothing starts none. */
  constructor(jobs: number) {
    this.#jobs = jobs > 1 ? jobs : 0;
  }

  #start(): void {
    for (let i = 0; i < this.#jobs; i++) {
      const worker = new Worker(fileURLToPath(WORKER_URL.href));
      const slot = { worker, busy: 0 };
      worker.on("message", (message: { id: number; result?: StageResult; error?: { message: string; kind: "changed" | "io" | null; stack?: string } }) => {
        const pending = this.#pending.get(message.id);
        if (!pending) return;
        this.#pending.delete(message.id);
        slot.busy--;
        if (message.error) {
          const error = message.error.kind ? new StagingError(message.error.message, message.error.kind) : new Error(message.error.message);
          if (!message.error.kind && message.error.stack) error.stack = message.error.stack;
          pending.reject(error);
        } else pending.resolve(message.result!);
      });
      worker.on("error", (error) => this.#fail(new WorkerFailedError(`a build worker thread failed: ${error.message}`)));
      worker.on("exit", (code) => {
        if (!this.#closing) this.#fail(new WorkerFailedError(`a build worker thread stopped (exit code ${code})`));
      });
      this.#workers.push(slot);
    }
  }

  /** Stages one skill on the least busy worker (or inline with one job). */
  run(task: StageTask): Promise<StageResult> {
    if (this.#jobs === 0) return stageSkillObjects(task);
    if (this.#broken) return Promise.reject(this.#broken);
    if (this.#workers.length === 0) this.#start();
    const slot = this.#workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    const id = this.#next++;
    slot.busy++;
    return new Promise<StageResult>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, task });
    });
  }

  /** How many tasks are queued or running. */
  get inFlight(): number {
    return this.#pending.size;
  }

  #fail(error: Error): void {
    this.#broken ??= error;
    for (const pending of this.#pending.values()) pending.reject(this.#broken);
    this.#pending.clear();
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(this.#workers.map((w) => w.worker.terminate()));
  }
}

/** A worker thread died (a broken install, out of memory): the build stops with a message, not a hang. */
export class WorkerFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WorkerFailedError";
  }
}
