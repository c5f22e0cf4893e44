// workerd's own view of one Worker's isolate, through its V8 inspector (Miniflare's inspectorPort):
// the time the isolate was busy during a request, from V8's sampling profiler (every sample that
// was not idle, so the R2 and KV simulators, which run in other isolates, are not counted), and
// its heap. The profiler's samples are wall-clock: on a loaded machine they also count time the
// thread waited for a core, so the bench reports it beside workerd's CPU time, not instead of it.
// Not `performance.now()` inside the Worker: workerd freezes the clock during execution.

/** A Chrome DevTools Protocol session with one isolate. */
export class Inspector {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  #next = 0;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: { message: string } };
      const waiting = message.id === undefined ? undefined : this.#pending.get(message.id);
      if (!waiting) return;
      this.#pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(`inspector: ${message.error.message}`));
      else waiting.resolve(message.result ?? {});
    });
  }

  /**
   * Connects to the isolate of the Worker named `worker` at workerd's inspector address.
   * @example const isolate = await Inspector.connect(await mf.getInspectorURL(), "skillshelf")
   */
  static async connect(inspectorUrl: URL, worker: string, samplingMicros = 1000): Promise<Inspector> {
    const targets = (await (await fetch(`http://${inspectorUrl.host}/json/list`)).json()) as { id: string; webSocketDebuggerUrl: string }[];
    const target = targets.find((t) => t.id === `core:user:${worker}`) ?? targets.find((t) => t.id.endsWith(`:${worker}`));
    if (!target) throw new Error(`no inspector target for Worker ${worker} among ${targets.map((t) => t.id).join(", ")}`);
    const socket = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      socket.addEventListener("open", () => resolve(), { once: true });
      socket.addEventListener("error", () => reject(new Error(`cannot connect to ${target.webSocketDebuggerUrl}`)), { once: true });
    });
    const inspector = new Inspector(socket);
    await inspector.send("Profiler.enable");
    // 1 ms: finer sampling costs the isolate CPU that workerd's own CPU time would then count.
    await inspector.send("Profiler.setSamplingInterval", { interval: samplingMicros });
    return inspector;
  }

  send(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /**
   * The isolate's busy milliseconds while `fn` ran: the profiler's non-idle samples (JS, GC, and
   * native work the isolate did, such as hashing and compression).
   */
  async busyMs(fn: () => Promise<void>): Promise<number> {
    return busyMs(await this.profile(fn));
  }

  /** V8's CPU profile of the isolate while `fn` ran (bench/budget/profile-cold.ts reads it whole). */
  async profile(fn: () => Promise<void>): Promise<CpuProfile> {
    await this.send("Profiler.start");
    const ran = await fn().then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    const { profile } = (await this.send("Profiler.stop")) as { profile: CpuProfile };
    if (ran) throw ran.error;
    return profile;
  }

  /**
   * The isolate's used heap, bytes (V8's Runtime.getHeapUsage): live objects and whatever garbage
   * the last requests left that V8 has not collected yet, so an upper bound of what the isolate
   * holds (a warm isolate read 138 MiB at 10,000 skills and 42 MiB a few requests later). workerd's
   * inspector never answers HeapProfiler.collectGarbage (V8 runs it as a task the idle isolate does
   * not run); liveHeap() below collects through a heap snapshot instead.
   */
  async heapUsed(): Promise<number> {
    const usage = (await this.send("Runtime.getHeapUsage")) as { usedSize: number };
    return usage.usedSize;
  }

  /**
   * The isolate's live heap, bytes: V8's used heap right after a heap snapshot, which collects all
   * available garbage before it walks the heap (unlike HeapProfiler.collectGarbage, workerd's
   * inspector answers HeapProfiler.takeHeapSnapshot on an idle isolate). The snapshot's chunks are
   * discarded; only the collection matters. Seconds at 10,000 skills, so once per isolate, not per request.
   */
  async liveHeap(): Promise<{ liveBytes: number; usedBefore: number }> {
    const usedBefore = await this.heapUsed();
    await this.send("HeapProfiler.enable");
    await this.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false, captureNumericValue: false });
    await this.send("HeapProfiler.disable");
    return { liveBytes: await this.heapUsed(), usedBefore };
  }

  close(): void {
    this.#socket.close();
  }
}

/** A V8 CPU profile (the Chrome DevTools Protocol's Profiler.Profile), as much of it as the benches read. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Milliseconds of a profile's samples that were not idle (each sample stands for the time since the one before it). */
function busyMs(profile: CpuProfile): number {
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  let micros = 0;
  for (const [i, node] of profile.samples.entries()) if (!idle.has(node)) micros += profile.timeDeltas[i] ?? 0;
  return micros / 1000;
}
