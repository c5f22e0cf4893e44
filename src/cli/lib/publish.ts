// What publishing needs beyond the protocol (src/core/publish/client.ts): the build folder as a source
// of objects, the publish token from the environment, and progress for people (a redrawn line
// on a terminal) or for logs (plain lines in CI).
import { stat } from "node:fs/promises";
import type { PublishProgress, PublishSource } from "../../core/publish/client.ts";
import { AdminClient, PublishError } from "../../core/publish/client.ts";
import { POINTER_MOVED } from "../../core/publish/contract.ts";
import { CliError, UsageError, type CliContext } from "./cli.ts";
import { readBuildFolder, readBuildObject } from "./build.ts";

/** The environment variable holding the publish token unless --token-env names another. */
export const DEFAULT_TOKEN_ENV = "SKILLSHELF_PUBLISH_TOKEN";

/** Reads the publish token from the environment, or explains how to provide it. */
export function tokenFrom(ctx: CliContext, name: string | undefined): string {
  const variable = name ?? DEFAULT_TOKEN_ENV;
  const token = ctx.env[variable]?.trim();
  if (!token) throw new UsageError(`no publish token: set ${variable} to the publish token (or name another variable with --token-env)`);
  return token;
}

/** Checks --url: an http(s) URL without credentials. */
export function workerUrl(value: string | undefined, usage: string): string {
  if (!value) throw new UsageError(`--url is required\nusage: ${usage}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--url ${value} is not a URL; pass the Worker's address, e.g. https://shelf.example.com`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--url must be http or https, not ${url.protocol}`);
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
