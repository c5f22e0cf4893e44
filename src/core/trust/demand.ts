// Derived demand (AbstractSkill derive_demand): the risk rank a skill asks for, from its declared
// requires_tools / requires_mcp joined against a host's tool inventory, with coverage buckets.
// Informational: the host's grant stays the only gate; this never widens or grants anything.
import { pyRepr, pyStr, pyTypeName, PyFloat } from "../python-compat/pyfmt.ts";
import { pyStrip } from "../python-compat/py-text.ts";
import type { SkillRequires } from "./select.ts";

export const RISK_RANK_MIN = 1;
export const RISK_RANK_MAX = 4;
/** Bundled scripts floor the demand at the execution band. */
export const EXECUTION_FLOOR_RANK = RISK_RANK_MAX;
export const COVERED = "covered";
export const NOT_GRANTED = "not_granted";
export const NOT_AVAILABLE = "not_available";
export const DISABLED = "registered_disabled";
export type CoverageBucket = typeof COVERED | typeof NOT_GRANTED | typeof NOT_AVAILABLE | typeof DISABLED;

/** One declared demand joined against the inventory. */
export interface DemandRow {
  name: string;
  kind: "tool" | "mcp_server" | "mcp_tool";
  bucket: CoverageBucket;
  risk_rank: number | null;
  band: string | null;
  presentation: string | null;
  via_server: string | null;
}

/** The render inputs for one skill on one host. */
export interface DemandReport {
  declared: boolean;
  /** Max resolved rank of declared demands; null when none resolved (never defaulted low). */
  demand_rank: number | null;
  scripts_floor: boolean;
  /** demand_rank with the scripts floor applied. */
  effective_rank: number | null;
  /** "scripts_floor" | "undeclared" | "declared" (the declaration axis). */
  state: "scripts_floor" | "undeclared" | "declared";
  rows: DemandRow[];
  unmet_servers: string[];
  notes: string[];
}

export interface DemandOptions {
  has_scripts: boolean;
  /** Host inventory rows (read tolerantly: name required; risk_rank, risk_tier, risk_presentation, enabled, mcp_server/server). */
  inventory?: readonly unknown[];
  /** The session's grant; null/undefined means no grant lens. */
  granted?: Iterable<unknown> | null;
}

type Row = Record<string, unknown>;
const isRow = (v: unknown): v is Row => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof PyFloat);

// Python int(str): optional whitespace and sign, digits with single underscores between them.
function pyIntFromString(s: string): number | null {
  const m = /^[+-]?\d+(?:_\d+)*$/.exec(pyStrip(s));
  return m ? Number(m[0].replace(/_/g, "")) : null;
}

function coerceRank(raw: unknown, notes: string[], name: string, key: string): number | null {
  if (typeof raw === "boolean") {
    notes.push(`#FALLBACK: inventory row ${pyRepr(name)} carries boolean ${key} ${pyRepr(raw)}; treated as unserved`);
    return null;
  }
  if (typeof raw === "number" && !Number.isInteger(raw)) {
    notes.push(`#FALLBACK: inventory row ${pyRepr(name)} carries non-integral ${key} ${pyRepr(raw)}; treated as unserved (never truncated)`);
    return null;
  }
  let rank: number | null = null;
  if (typeof raw === "number" && Number.isInteger(raw)) rank = raw;
  else if (raw instanceof PyFloat && Number.isFinite(raw.value)) rank = raw.value;
  else if (typeof raw === "string") rank = pyIntFromString(raw);
  if (rank === null) {
    notes.push(`#FALLBACK: inventory row ${pyRepr(name)} carries non-integer ${key} ${pyRepr(raw)}; treated as unserved`);
    return null;
  }
  if (rank < RISK_RANK_MIN || rank > RISK_RANK_MAX) {
    notes.push(
      `#FALLBACK: inventory row ${pyRepr(name)} carries out-of-band ${key} ${rank} (frozen band ${RISK_RANK_MIN}..${RISK_RANK_MAX}); treated as unserved`,
    );
    return null;
  }
  return rank;
}

function rowRank(row: Row, notes: string[], name: string): number | null {
  const rawRank = row.risk_rank;
  if (rawRank !== null && rawRank !== undefined) return coerceRank(rawRank, notes, name, "risk_rank");
  const legacy = row.risk_tier;
  if (legacy === null || legacy === undefined) return null;
  if (typeof legacy === "string") {
    notes.push(
      `#FALLBACK: inventory row ${pyRepr(name)} serves band word risk_tier=${pyRepr(legacy)} with no risk_rank — ordinal unserved (this consumer never re-derives the word->rank mapping)`,
    );
    return null;
  }
  const rank = coerceRank(legacy, notes, name, "risk_tier");
  if (rank !== null)
    notes.push(`#FALLBACK: inventory row ${pyRepr(name)} serves the pre-vote shape (numeric risk_tier=${pyRepr(legacy)}, no risk_rank); accepted one release`);
  return rank;
}

const nonBlank = (v: unknown): string | null => (typeof v === "string" && pyStrip(v) ? pyStrip(v) : null);

function rowEnabled(row: Row, notes: string[], name: string): boolean {
  const raw = row.enabled;
  if (raw === null || raw === undefined) return true;
  if (typeof raw === "boolean") return raw;
  if (typeof raw === "string") {
    const lowered = pyStrip(raw).toLowerCase();
    if (["false", "no", "0", "off"].includes(lowered)) return false;
    if (["true", "yes", "1", "on"].includes(lowered)) return true;
  }
  notes.push(`#FALLBACK: inventory row ${pyRepr(name)} carries unreadable enabled value ${pyRepr(raw)}; treated as enabled (the absent-key default)`);
  return true;
}

const rowServer = (row: Row): string | null => nonBlank(row.mcp_server) ?? nonBlank(row.server);

// Host absence is decided before grant absence, so a host gap never reads as a grant gap.
function bucketFor(name: string, row: Row | undefined, granted: Set<string> | null, notes: string[]): [CoverageBucket, number | null] {
  if (!row) return [NOT_AVAILABLE, null];
  const rank = rowRank(row, notes, name);
  if (!rowEnabled(row, notes, name)) return [DISABLED, rank];
  if (granted && !granted.has(name)) return [NOT_GRANTED, rank];
  return [COVERED, rank];
}

/**
 * Joins one skill's declared demands against a host inventory.
 * @example deriveDemand({ mcp_servers: [], tools: ["write_file"] }, { has_scripts: false, inventory: [{ name: "write_file", risk_rank: 2 }] }).demand_rank // 2
 */
export function deriveDemand(requires: SkillRequires, options: DemandOptions): DemandReport {
  const notes: string[] = [];
  const byName = new Map<string, Row>();
  const byServer = new Map<string, Row[]>();
  for (const row of options.inventory ?? []) {
    if (!isRow(row)) {
      notes.push(`#FALLBACK: non-mapping inventory row (${pyTypeName(row)}) skipped`);
      continue;
    }
    const name = nonBlank(row.name);
    if (name === null) {
      notes.push("#FALLBACK: inventory row without a usable name skipped");
      continue;
    }
    const first = byName.get(name);
    if (first) {
      const dupServer = rowServer(row);
      if (dupServer && rowServer(first) !== dupServer) {
        notes.push(
          `#FALLBACK: duplicate inventory row ${pyRepr(name)}; first kept (dropped copy carried mcp_server ${pyRepr(dupServer)} — that server's expansion will not see this row)`,
        );
      } else notes.push(`#FALLBACK: duplicate inventory row ${pyRepr(name)}; first kept`);
      continue;
    }
    byName.set(name, row);
    const server = rowServer(row);
    if (server) byServer.set(server, [...(byServer.get(server) ?? []), row]);
  }
  const granted = options.granted === null || options.granted === undefined ? null : new Set([...options.granted].map((g) => pyStrip(pyStr(g))));
  const declared = requires.tools.length > 0 || requires.mcp_servers.length > 0;
  const rows: DemandRow[] = [];
  const unmet: string[] = [];
  const ranks: number[] = [];
  if (byName.size === 0 && declared) {
    notes.push(
      "#FALLBACK: host served no readable inventory rows — every declared demand renders not_available (a day-one host, not necessarily a missing tool)",
    );
  }
  const decorate = (row: Row | undefined) => ({ band: row ? nonBlank(row.risk_tier) : null, presentation: row ? nonBlank(row.risk_presentation) : null });
  for (const raw of requires.tools) {
    const tool = pyStrip(raw);
    if (!tool) continue;
    const row = byName.get(tool);
    const [bucket, rank] = bucketFor(tool, row, granted, notes);
    rows.push({ name: tool, kind: "tool", bucket, risk_rank: rank, ...decorate(row), via_server: null });
    if (rank !== null) ranks.push(rank);
  }
  for (const raw of requires.mcp_servers) {
    const server = pyStrip(raw);
    if (!server) continue;
    const served = byServer.get(server);
    if (!served?.length) {
      unmet.push(server);
      rows.push({ name: server, kind: "mcp_server", bucket: NOT_AVAILABLE, risk_rank: null, band: null, presentation: null, via_server: null });
      continue;
    }
    for (const row of served) {
      const name = nonBlank(row.name) ?? "";
      const [bucket, rank] = bucketFor(name, row, granted, notes);
      rows.push({ name, kind: "mcp_tool", bucket, risk_rank: rank, ...decorate(row), via_server: server });
      if (rank !== null) ranks.push(rank);
    }
  }
  const demandRank = ranks.length ? Math.max(...ranks) : null;
  const scriptsFloor = Boolean(options.has_scripts);
  return {
    declared,
    demand_rank: demandRank,
    scripts_floor: scriptsFloor,
    effective_rank: scriptsFloor ? Math.max(demandRank ?? RISK_RANK_MIN, EXECUTION_FLOOR_RANK) : demandRank,
    state: scriptsFloor && !declared ? "scripts_floor" : declared ? "declared" : "undeclared",
    rows,
    unmet_servers: unmet,
    notes,
  };
}
