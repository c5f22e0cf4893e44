// What publishing needs beyond the protocol (src/core/publish/client.ts): the build folder as a source
// of objects, the publish token from the environment, and progress for people (a redrawn line
// on a terminal) or for logs (plain lines in CI).
import { stat } from "node:fs/promises";
import type { PublishProgress, PublishSource } from "../../core/publish/client.ts";
import { AdminClient, PublishError } from "../../core/publish/client.ts";
import { POINTER_MOVED } from "../../core/publish/contract.ts";
import { SHELF_WIDE_LISTINGS } from "../../core/api/listings.ts";
import { CliError, UsageError, type CliContext } from "./cli.ts";
import { readBuildFolder, readBuildObject } from "./build-folder.ts";

/** The environment variable holding the publish token unless --token-env names another. */
export const DEFAULT_TOKEN_ENV = "SKILLSHELF_PUBLISH_TOKEN";

/** Reads the publish token from the environment, or explains how to provide it. */
export function tokenFrom(ctx: CliContext, name: string | undefined): string {
  const variable = name ?? DEFAULT_TOKEN_ENV;
  const token = ctx.env[variable]?.trim();
  if (!token) throw new UsageError(`no publish token: set ${variable} to the publish token (or name another variable with --token-env)`);
  return token;
}

/** The capability path a read URL may carry (docs/http.md): /c/<token>. */
const CAPABILITY_PATH = /^\/c\/[^/]+\/?$/;

/**
 * Checks --url: an http(s) URL of the shelf's root (the Worker serves at the root of its host, so
 * a path such as the pages' /ui/ or /mcp is a mistake that would otherwise surface as a 401 or
 * 404); `capability` also accepts the root plus /c/<token> (lock, install).
 */
export function workerUrl(value: string | undefined, usage: string, options: { capability?: boolean } = {}): string {
  if (!value) throw new UsageError(`--url is required\nusage: ${usage}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url ${value} is not a URL; pass the Worker's address, e.g. https://shelf.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--url must be http or https, not ${url.protocol}`);
  const atRoot = url.pathname === "/" || (options.capability === true && CAPABILITY_PATH.test(url.pathname));
  if (!atRoot || url.search !== "" || url.hash !== "") {
    const extra = `${url.pathname}${url.search}${url.hash}`;
    const alternative = options.capability === true ? " or its capability URL (…/c/<token>)" : "";
    throw new UsageError(`--url must be the shelf's root (${url.origin}, without ${extra})${alternative}; pass --url ${url.origin}`);
  }
  return url.toString().replace(/\/+$/, "");
}

/** A build folder as a publish source. */
export async function buildFolderSource(dir: string): Promise<PublishSource> {
  try {
    await stat(dir);
  } catch {
    throw new UsageError(`no build folder at ${dir}; run \`npx skillshelf build <shelf-dir> --out ${dir}\` first (or pass --dir)`);
  }
  const folder = await readBuildFolder(dir);
  return {
    id: folder.id,
    manifest: folder.manifest,
    manifestBytes: folder.manifestBytes,
    signatures: folder.signatures,
    read: (kind, sha) => readBuildObject(dir, kind, sha),
  };
}

function human(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/**
 * A progress reporter: on a terminal one line redrawn in place (objects, bytes, rate); otherwise
 * plain lines at the start, every quarter and the end of the upload.
 */
export function progressReporter(ctx: CliContext, clock: () => number = Date.now): { onProgress: (p: PublishProgress) => void; done: () => void } {
  const started = clock();
  let lastQuarter = -1;
  let drew = false;
  return {
    onProgress(p) {
      if (p.phase !== "uploading") return;
      const seconds = Math.max((clock() - started) / 1000, 0.001);
      const line = `uploading ${p.objectsDone}/${p.objectsTotal} objects, ${human(p.bytesDone)} of ${human(p.bytesTotal)}, ${human(p.bytesDone / seconds)}/s`;
      if (ctx.interactive) {
        ctx.stderr(`\r\x1b[2K${line}`);
        drew = true;
        return;
      }
      const quarter = p.objectsTotal === 0 ? 4 : Math.floor((4 * p.objectsDone) / p.objectsTotal);
      if (quarter !== lastQuarter) {
        lastQuarter = quarter;
        ctx.stderr(`${line}\n`);
      }
    },
    done() {
      if (drew) ctx.stderr("\n");
    },
  };
}

/** The exit code for a pointer move that lost its compare-and-swap to another publisher. */
export const LOST_RACE_EXIT = 3;

/** Exit 3 only for a lost pointer race (rerun to publish on top of it); 1 for every other refusal. */
export function exitCodeFor(error: PublishError): number {
  return error.status === 409 && error.code === POINTER_MOVED ? LOST_RACE_EXIT : 1;
}

/** Runs an admin call and turns its failure into a one-line CLI error. */
export async function adminCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof PublishError) throw new CliError(error.message, exitCodeFor(error));
    throw error;
  }
}

/** An admin client for the commands other than publish. */
export function adminClient(ctx: CliContext, url: string, token: string): AdminClient {
  return new AdminClient({ url, token, fetch: answeringFetch(url), onLog: (line) => ctx.stderr(`${line}\n`) });
}

/** The errors that mean nothing listens at the address (or the name does not resolve), not a busy Worker. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EAI_NONAME", "EHOSTUNREACH", "ENETUNREACH"]);

function unreachableCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; errors?: { code?: unknown }[] } } | undefined)?.cause;
  const codes = [cause?.code, ...(cause?.errors ?? []).map((e) => e?.code)];
  return codes.find((c): c is string => typeof c === "string" && UNREACHABLE.has(c));
}

/**
 * fetch for the admin client that gives up quickly on a URL where nothing answers: until the
 * Worker has answered once, a second refused connection (or unresolvable name) in a row ends the
 * command with what to check, instead of the client's retries for a Worker that is only busy.
 * Once it has answered, failures get the full retries (an interrupted publish continues).
 */
export function answeringFetch(
  url: string,
  base: (request: Request) => Promise<Response> = (request) => fetch(request),
): (request: Request) => Promise<Response> {
  let answered = false;
  let refused = 0;
  return async (request) => {
    try {
      const response = await base(request);
      answered = true;
      return response;
    } catch (error) {
      const code = unreachableCode(error);
      if (!answered && code !== undefined && ++refused >= 2) {
        throw new PublishError(0, "unreachable", `nothing answers at ${url} (${code}): is the Worker running (npm start), and is the URL right?`);
      }
      throw error;
    }
  };
}

/** How long until every edge serves a pointer move (docs/storage.md: the 300 s R2 re-read plus the 30 s memory). */
export const VISIBLE_EVERYWHERE_S = 330;
/** --wait's default timeout: a little over that bound. */
export const DEFAULT_WAIT_TIMEOUT_S = 360;

/** What a pointer move's output says about when readers see it. */
export function visibilityNote(): string {
  return `every edge serves it within ${VISIBLE_EVERYWHERE_S / 60} minutes (typically about 2; a local npm start at once); pass --wait to watch for it\n`;
}

/** Parses --wait-timeout (whole seconds, at least 1). */
export function waitTimeout(value: string | undefined, usage: string): number {
  if (value === undefined) return DEFAULT_WAIT_TIMEOUT_S;
  if (!/^[1-9][0-9]*$/.test(value)) throw new UsageError(`--wait-timeout must be a whole number of seconds (1 or more), not ${value}\nusage: ${usage}`);
  return Number(value);
}

/** The variable --wait reads a private shelf's read token from, unless --read-token-env names another. */
export const DEFAULT_READ_TOKEN_ENV = "SKILLSHELF_READ_TOKEN";

/** The read token --wait sends, if its variable is set: the publish token is not a read token (it only reaches /admin). */
export function readTokenFrom(ctx: CliContext, name: string | undefined): { variable: string; token: string | undefined } {
  const variable = name ?? DEFAULT_READ_TOKEN_ENV;
  return { variable, token: ctx.env[variable]?.trim() || undefined };
}

/** How the CLI's reads of a shelf send its read token: a bearer token, or nothing on a public shelf. */
function readAuthorization(read: { token: string | undefined }): Record<string, string> {
  return read.token === undefined ? {} : { Authorization: `Bearer ${read.token}` };
}

/**
 * Polls GET /v1/shelf (its Skillshelf-Generation header, else the body's generation) until the
 * Worker serves `generation`, printing progress; a CliError (exit 1) when `timeoutS` passes first.
 * A private shelf is read with the read token from `read` (its variable named in the advice when missing or refused).
 */
export async function waitUntilServed(
  ctx: CliContext,
  url: string,
  generation: string,
  timeoutS: number,
  io: { fetch?: (request: Request) => Promise<Response>; sleep?: (ms: number) => Promise<void>; clock?: () => number } = {},
  read: { variable: string; token: string | undefined } = readTokenFrom(ctx, undefined),
): Promise<void> {
  const get = io.fetch ?? ((request: Request) => fetch(request));
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const clock = io.clock ?? Date.now;
  const started = clock();
  let served = "nothing yet";
  for (;;) {
    const elapsed = Math.round((clock() - started) / 1000);
    try {
      const response = await get(new Request(`${url}/v1/shelf`, { headers: { Accept: "application/json", ...readAuthorization(read) } }));
      const body = (await response.json().catch(() => ({}))) as { generation?: unknown };
      if (response.status === 401 || response.status === 403)
        throw new CliError(
          read.token === undefined
            ? `cannot watch ${url}: the shelf is private; set ${read.variable} to a read token (or name another variable with --read-token-env) so --wait can read it. The pointer did move`
            : `cannot watch ${url}: it refused the read token in ${read.variable} (${response.status}); the pointer did move`,
        );
      served = response.headers.get("Skillshelf-Generation") ?? (typeof body.generation === "string" ? body.generation : `status ${response.status}`);
    } catch (error) {
      if (error instanceof CliError) throw error;
      served = `no answer (${(error as Error).message})`;
    }
    if (served === generation) {
      ctx.stderr(`${url} serves ${generation.slice(0, 12)}… (after ${elapsed} s)\n`);
      return;
    }
    if (elapsed >= timeoutS) {
      throw new CliError(
        `after ${timeoutS} s ${url} still serves ${served === "nothing yet" ? served : served.slice(0, 12)}…, not ${generation}; the pointer did move (see skillshelf history), and every edge serves it within ${VISIBLE_EVERYWHERE_S} s of the move`,
      );
    }
    ctx.stderr(`waiting for ${url} to serve ${generation.slice(0, 12)}… (it serves ${served.slice(0, 12)}; ${elapsed} s of ${timeoutS} s)\n`);
    await sleep(1000);
  }
}

/**
 * Asks the Worker, once it serves the new generation, for each shelf-wide listing
 * (SHELF_WIDE_LISTINGS), so the first isolate to build each from every shard is this request's and
 * not a reader's: the Worker keeps what it built in R2 for every later cold isolate (docs/deploy.md,
 * "Caches"). A listing the shelf does not serve (404: a well-known family turned off) is skipped;
 * any other refusal or failure is named, and left to its first reader. Never fails the command:
 * the pointer did move.
 */
export async function renderListings(
  ctx: CliContext,
  url: string,
  read: { token: string | undefined },
  io: { fetch?: (request: Request) => Promise<Response>; clock?: () => number } = {},
): Promise<void> {
  const get = io.fetch ?? ((request: Request) => fetch(request));
  const clock = io.clock ?? Date.now;
  const started = clock();
  const headers = readAuthorization(read);
  let built = 0;
  const notBuilt: string[] = [];
  for (const path of SHELF_WIDE_LISTINGS) {
    try {
      const response = await get(new Request(`${url}${path}`, { headers }));
      await response.arrayBuffer();
      if (response.ok) built++;
      else if (response.status !== 404) notBuilt.push(`${path} (${response.status})`);
    } catch (error) {
      notBuilt.push(`${path} (${(error as Error).message})`);
    }
  }
  const seconds = Math.round((clock() - started) / 1000);
  ctx.stderr(`${url} built ${built} shelf-wide listing(s) of the new generation for its cold isolates (${seconds} s)\n`);
  if (notBuilt.length > 0)
    ctx.stderr(
      `not built now: ${notBuilt.join(", ")}; the first reader of each builds it (on the Free plan a large shelf's listing can run out of CPU: docs/deploy.md, "Caches")\n`,
    );
}
