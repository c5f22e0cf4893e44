// Resource bytes as tool output, as agentskills-core produces it: valid UTF-8 passes through,
// anything else becomes a JSON envelope (base64, or a note when too large), and images a model
// can see natively are recognised by their magic bytes before their name.
import { DEFAULT_MEDIA_TYPE } from "../skill/inventory.ts";
import { pyJsonString } from "../python-compat/py-json.ts";

/** Largest binary inlined as base64 (base64 costs ~1.37 characters per byte of context). */
export const DEFAULT_MAX_INLINE_BINARY_BYTES = 64 * 1024;

/** Largest image handed to a model natively (the lowest per-image limit of the major APIs). */
export const DEFAULT_MAX_INLINE_IMAGE_BYTES = 5 * 1024 * 1024;

/** Raster formats every common vision model accepts. PDF and SVG are deliberately absent. */
export const RENDERABLE_MEDIA_TYPES: ReadonlySet<string> = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

// CPython 3.11's built-in `mimetypes` table (strict types), media type → extensions. The library
// also reads the host's /etc/mime.types, which varies by machine; a Worker has none, so we match
// the built-in table (docs/compatibility.md).
const MEDIA_TYPE_EXTENSIONS: Record<string, string> = {
  "application/javascript": "js mjs",
  "application/json": "json",
  "application/manifest+json": "webmanifest",
  "application/msword": "doc dot wiz",
  "application/n-quads": "nq",
  "application/n-triples": "nt",
  "application/octet-stream": "a bin dll exe o obj so",
  "application/oda": "oda",
  "application/pdf": "pdf",
  "application/pkcs7-mime": "p7c",
  "application/postscript": "ai eps ps",
  "application/trig": "trig",
  "application/vnd.apple.mpegurl": "m3u m3u8",
  "application/vnd.ms-excel": "xlb xls",
  "application/vnd.ms-powerpoint": "pot ppa pps ppt pwz",
  "application/wasm": "wasm",
  "application/x-bcpio": "bcpio",
  "application/x-cpio": "cpio",
  "application/x-csh": "csh",
  "application/x-dvi": "dvi",
  "application/x-gtar": "gtar",
  "application/x-hdf": "hdf",
  "application/x-hdf5": "h5",
  "application/x-latex": "latex",
  "application/x-mif": "mif",
  "application/x-netcdf": "cdf nc",
  "application/x-pkcs12": "p12 pfx",
  "application/x-pn-realaudio": "ram",
  "application/x-python-code": "pyc pyo",
  "application/x-sh": "sh",
  "application/x-shar": "shar",
  "application/x-shockwave-flash": "swf",
  "application/x-sv4cpio": "sv4cpio",
  "application/x-sv4crc": "sv4crc",
  "application/x-tar": "tar",
  "application/x-tcl": "tcl",
  "application/x-tex": "tex",
  "application/x-texinfo": "texi texinfo",
  "application/x-troff": "roff t tr",
  "application/x-troff-man": "man",
  "application/x-troff-me": "me",
  "application/x-troff-ms": "ms",
  "application/x-ustar": "ustar",
  "application/x-wais-source": "src",
  "application/xml": "rdf wsdl xpdl xsl",
  "application/zip": "zip",
  "audio/3gpp": "3gp 3gpp",
  "audio/3gpp2": "3g2 3gpp2",
  "audio/aac": "aac adts ass loas",
  "audio/basic": "au snd",
  "audio/mpeg": "mp2 mp3",
  "audio/opus": "opus",
  "audio/x-aiff": "aif aifc aiff",
  "audio/x-pn-realaudio": "ra",
  "audio/x-wav": "wav",
  "image/avif": "avif",
  "image/bmp": "bmp",
  "image/gif": "gif",
  "image/heic": "heic",
  "image/heif": "heif",
  "image/ief": "ief",
  "image/jpeg": "jpe jpeg jpg",
  "image/png": "png",
  "image/svg+xml": "svg",
  "image/tiff": "tif tiff",
  "image/vnd.microsoft.icon": "ico",
  "image/x-cmu-raster": "ras",
  "image/x-portable-anymap": "pnm",
  "image/x-portable-bitmap": "pbm",
  "image/x-portable-graymap": "pgm",
  "image/x-portable-pixmap": "ppm",
  "image/x-rgb": "rgb",
  "image/x-xbitmap": "xbm",
  "image/x-xpixmap": "xpm",
  "image/x-xwindowdump": "xwd",
  "message/rfc822": "eml mht mhtml nws",
  "text/css": "css",
  "text/csv": "csv",
  "text/html": "htm html",
  "text/n3": "n3",
  "text/plain": "bat c h ksh pl srt txt",
  "text/richtext": "rtx",
  "text/tab-separated-values": "tsv",
  "text/vtt": "vtt",
  "text/x-python": "py",
  "text/x-setext": "etx",
  "text/x-sgml": "sgm sgml",
  "text/x-vcard": "vcf",
  "text/xml": "xml",
  "video/mp4": "mp4",
  "video/mpeg": "m1v mpa mpe mpeg mpg",
  "video/quicktime": "mov qt",
  "video/webm": "webm",
  "video/x-msvideo": "avi",
  "video/x-sgi-movie": "movie",
};

const TYPES_BY_EXTENSION = new Map<string, string>(
  Object.entries(MEDIA_TYPE_EXTENSIONS).flatMap(([type, exts]) => exts.split(" ").map((ext) => [`.${ext}`, type] as const)),
);

/** Compression suffixes, case-sensitive as in CPython: they are peeled off before the type lookup. */
const ENCODING_SUFFIXES = new Set([".gz", ".Z", ".bz2", ".xz", ".br"]);

/** Shorthand suffixes CPython expands before looking up the type (matched case-insensitively). */
const SUFFIX_ALIASES = new Map([
  [".svgz", ".svg.gz"],
  [".tgz", ".tar.gz"],
  [".taz", ".tar.gz"],
  [".tz", ".tar.gz"],
  [".tbz2", ".tar.bz2"],
  [".txz", ".tar.xz"],
]);

/** POSIX splitext: the last `.suffix` of the last path segment, ignoring leading dots. */
function splitext(p: string): [string, string] {
  const sep = p.lastIndexOf("/");
  const dot = p.lastIndexOf(".");
  if (dot > sep) {
    for (let i = sep + 1; i < dot; i++) {
      if (p[i] !== ".") return [p.slice(0, dot), p.slice(dot)];
    }
  }
  return [p, ""];
}

/**
 * The media type Python's `mimetypes.guess_type(name)` gives with CPython 3.11's built-in table,
 * or undefined. `x.tar.gz` is application/x-tar (gzip is an encoding, not a type).
 * @example guessMediaType("DIAGRAM.PNG") // "image/png"
 */
export function guessMediaType(name: string): string | undefined {
  let url = name;
  const scheme = /^([^/:]+):([\s\S]*)$/.exec(name);
  if (scheme) {
    url = scheme[2]!;
    if (scheme[1]!.toLowerCase() === "data") {
      const comma = url.indexOf(",");
      if (comma < 0) return undefined;
      const semi = url.slice(0, comma).indexOf(";");
      const type = semi >= 0 ? url.slice(0, semi) : url.slice(0, comma);
      return type.includes("=") || !type.includes("/") ? "text/plain" : type;
    }
  }
  let [base, ext] = splitext(url);
  for (let alias = SUFFIX_ALIASES.get(ext.toLowerCase()); alias !== undefined; alias = SUFFIX_ALIASES.get(ext.toLowerCase())) {
    [base, ext] = splitext(base + alias);
  }
  if (ENCODING_SUFFIXES.has(ext)) [base, ext] = splitext(base);
  return TYPES_BY_EXTENSION.get(ext.toLowerCase());
}

/** Strict UTF-8 that keeps a BOM, as Python's `bytes.decode("utf-8")`; undefined when invalid. */
function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function base64Of(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** A flat object as Python's json.dumps writes it: `{"k": v, "k2": v2}`. */
function pyJsonObject(entries: [string, string | number][]): string {
  const parts = entries.map(([k, v]) => `${pyJsonString(k)}: ${typeof v === "number" ? String(v) : pyJsonString(v)}`);
  return `{${parts.join(", ")}}`;
}

/** Options of encodeResourceContent. */
export interface EncodeResourceOptions {
  /** Binaries larger than this get a note instead of content; 0 never inlines. Default 64 KiB. */
  maxInlineBinaryBytes?: number;
}

/**
 * Resource bytes as text an agent can read, exactly as agentskills-core's
 * `encode_resource_content`: valid UTF-8 verbatim (a BOM kept); otherwise a JSON envelope with
 * name, media_type (from the name), size_bytes and base64 content, or, above the limit,
 * `"encoding": "none"` and a note.
 * @example encodeResourceContent("x.bin", new Uint8Array([0xff])) // '{"name": "x.bin", "media_type": "application/octet-stream", …}'
 */
export function encodeResourceContent(name: string, bytes: Uint8Array, options: EncodeResourceOptions = {}): string {
  const limit = options.maxInlineBinaryBytes ?? DEFAULT_MAX_INLINE_BINARY_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`maxInlineBinaryBytes must be a non-negative integer, got ${limit}`);
  }
  const text = decodeUtf8(bytes);
  if (text !== undefined) return text;
  const envelope: [string, string | number][] = [
    ["name", name],
    ["media_type", guessMediaType(name) ?? DEFAULT_MEDIA_TYPE],
    ["size_bytes", bytes.length],
  ];
  if (bytes.length > limit) {
    envelope.push(
      ["encoding", "none"],
      ["note", `Binary content omitted: ${bytes.length} bytes exceeds the ${limit}-byte inline limit. Retrieve this resource out of band if you need it.`],
    );
  } else {
    envelope.push(["encoding", "base64"], ["content", base64Of(bytes)]);
  }
  return pyJsonObject(envelope);
}

/** What a resource is and whether a model can be shown it natively. */
export interface ResourceMedia {
  name: string;
  media_type: string;
  size_bytes: number;
  /** False for anything whose leading bytes identify an image, even if it decodes as UTF-8. */
  is_text: boolean;
  /** A PNG, JPEG, GIF or WebP (by magic bytes) within the image size limit. */
  renderable: boolean;
}

/** Options of classifyResource. */
export interface ClassifyResourceOptions {
  /** Images larger than this are described, not shown; 0 never renders. Default 5 MiB. */
  maxInlineImageBytes?: number;
}

function startsWith(bytes: Uint8Array, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The renderable format named by the leading bytes: a name is a claim, bytes are evidence. */
function sniffImage(bytes: Uint8Array): string | undefined {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(bytes, ascii("GIF87a")) || startsWith(bytes, ascii("GIF89a"))) return "image/gif";
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp";
  return undefined;
}

/**
 * agentskills-core's `classify_resource`: magic bytes first, then the name; only PNG, JPEG, GIF
 * and WebP up to the limit are renderable.
 * @example classifyResource("notes.txt", pngBytes) // {media_type: "image/png", is_text: false, renderable: true, …}
 */
export function classifyResource(name: string, bytes: Uint8Array, options: ClassifyResourceOptions = {}): ResourceMedia {
  const limit = options.maxInlineImageBytes ?? DEFAULT_MAX_INLINE_IMAGE_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new RangeError(`maxInlineImageBytes must be a non-negative integer, got ${limit}`);
  }
  const sniffed = sniffImage(bytes);
  const isText = sniffed === undefined && decodeUtf8(bytes) !== undefined;
  return {
    name,
    media_type: sniffed ?? guessMediaType(name) ?? DEFAULT_MEDIA_TYPE,
    size_bytes: bytes.length,
    is_text: isText,
    renderable: sniffed !== undefined && RENDERABLE_MEDIA_TYPES.has(sniffed) && bytes.length <= limit,
  };
}
