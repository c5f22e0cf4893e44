// The load loop of bench/http.bench.ts: a fixed number of keep-alive connections (undici's Pool)
// sending a list of requests round-robin, bounded by a request count and a time limit, each answer
// read to its last byte and checked for its status. One round gives throughput, latency quantiles
// and the workerd CPU it cost per request.
import { performance } from "node:perf_hooks";
import { Pool } from "undici";
import { quantile } from "../report.ts";

/** One request of a row, and the status it must get. */
export interface BenchRequest {
  method?: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
}

/** Bounds of one round: whichever of `requests` and `seconds` comes first ends it. */
export interface RoundLimits {
  requests: number;
  seconds: number;
  connections: number;
}

/** What one round measured. */
export interface RoundResult {
  requests: number;
  perSecond: number;
  /** Latency quantiles of this round, milliseconds. */
  p50: number;
  p99: number;
  /** workerd CPU milliseconds per request over the round. */
  cpuMs: number;
  /** This process's (the load client's) CPU milliseconds per request: it shares the cores with workerd. */
  clientCpuMs: number;
  bytes: number;
}

/** A keep-alive pool of `connections` to one loopback origin. */
export function pool(origin: URL, connections: number): Pool {
  return new Pool(origin.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
}

/**
 * Sends one request and reads the whole answer; throws when the status is not the expected one.
 * @example const { bytes } = await send(p, { path: "/skills/x/SKILL.md", status: 200 })
 */
export async function send(
  target: Pool,
  request: BenchRequest,
): Promise<{ bytes: number; body: Buffer; headers: Record<string, string | string[] | undefined> }> {
  const answer = await target.request({ method: request.method ?? "GET", path: request.path, headers: request.headers, body: request.body });
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  if (answer.statusCode !== request.status) {
    throw new Error(`${request.method ?? "GET"} ${request.path}: ${answer.statusCode}, expected ${request.status}: ${body.toString("utf8", 0, 300)}`);
  }
  return { bytes: body.byteLength, body, headers: answer.headers };
}

/**
 * Runs one round: `limits.connections` loops sending `requests` round-robin until either bound is
 * reached, then waits for the requests in flight. `cpuSeconds` reads workerd's CPU before and after.
 */
export async function loadRound(target: Pool, requests: readonly BenchRequest[], limits: RoundLimits, cpuSeconds: () => number): Promise<RoundResult> {
  const latencies: number[] = [];
  let next = 0;
  let bytes = 0;
  const cpuStart = cpuSeconds();
  const clientStart = process.cpuUsage();
  const start = performance.now();
  const deadline = start + limits.seconds * 1000;
  const loop = async () => {
    while (next < limits.requests && performance.now() < deadline) {
      const request = requests[next++ % requests.length]!;
      const sent = performance.now();
      const answer = await target.request({ method: request.method ?? "GET", path: request.path, headers: request.headers, body: request.body });
      for await (const chunk of answer.body) bytes += (chunk as Buffer).byteLength;
      latencies.push(performance.now() - sent);
      if (answer.statusCode !== request.status) throw new Error(`${request.method ?? "GET"} ${request.path}: ${answer.statusCode}, expected ${request.status}`);
    }
  };
  await Promise.all(Array.from({ length: limits.connections }, loop));
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuSeconds() - cpuStart;
  const client = process.cpuUsage(clientStart);
  return {
    requests: latencies.length,
    perSecond: latencies.length / seconds,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    cpuMs: (cpu * 1000) / latencies.length,
    clientCpuMs: (client.user + client.system) / 1000 / latencies.length,
    bytes,
  };
}
