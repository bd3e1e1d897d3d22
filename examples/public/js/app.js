/*
 * embed-assets example script.
 *
 * Runs once the document has been parsed (the <script> tag uses `defer`):
 *   1. marks #status as "JavaScript ran" so you can see the script was served
 *      with a working Content-Type and executed;
 *   2. fetches /api/health and pretty-prints the JSON response into #health.
 *
 * No framework, no build step: just a few small helpers below.
 */
"use strict";

/* ------------------------------------------------------------------ */
/* Tiny DOM helpers                                                    */
/* ------------------------------------------------------------------ */

/**
 * Return the first element matching `selector` inside `root` (default: document).
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {Element | null}
 */
function $(selector, root = document) {
  return root.querySelector(selector);
}

/**
 * Return all elements matching `selector` as a real array.
 * @param {string} selector
 * @param {ParentNode} [root]
 * @returns {Element[]}
 */
function $$(selector, root = document) {
  return Array.from(root.querySelectorAll(selector));
}

/**
 * Create an element with attributes and children.
 *
 *   h("a", { href: "/", class: "link" }, "Home")
 *
 * Attribute values of `true` become empty attributes, `false`/`null`/`undefined`
 * are skipped, keys starting with "on" register event listeners.
 * Children may be strings, numbers, nodes, or (nested) arrays of those.
 *
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...unknown} children
 * @returns {HTMLElement}
 */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  appendChildren(el, children);
  return el;
}

function appendChildren(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) {
      appendChildren(parent, child);
    } else if (child instanceof Node) {
      parent.appendChild(child);
    } else {
      parent.appendChild(document.createTextNode(String(child)));
    }
  }
}

/**
 * Replace the text of an element (safely: never interpreted as HTML).
 * @param {Element | null} el
 * @param {string} text
 */
function setText(el, text) {
  if (el) el.textContent = text;
}

/**
 * Run `fn` once the DOM is ready (immediately if it already is).
 * @param {() => void} fn
 */
function onReady(fn) {
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", fn, { once: true });
  } else {
    fn();
  }
}

/* ------------------------------------------------------------------ */
/* Formatting helpers                                                  */
/* ------------------------------------------------------------------ */

const BYTE_UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

/**
 * Human-readable byte count using binary units: 1536 -> "1.5 KiB".
 * @param {number} bytes
 * @param {number} [digits]
 * @returns {string}
 */
function formatBytes(bytes, digits = 1) {
  if (!Number.isFinite(bytes)) return "?";
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const sign = bytes < 0 ? "-" : "";
  const text = unit === 0 ? String(value) : value.toFixed(digits);
  return `${sign}${text} ${BYTE_UNITS[unit]}`;
}

/**
 * Human-readable duration: 950 -> "950 ms", 61000 -> "1m 1s", 90061000 -> "1d 1h 1m".
 * @param {number} ms
 * @returns {string}
 */
function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  let seconds = Math.floor(ms / 1000);
  const days = Math.floor(seconds / 86400);
  seconds %= 86400;
  const hours = Math.floor(seconds / 3600);
  seconds %= 3600;
  const minutes = Math.floor(seconds / 60);
  seconds %= 60;
  const parts = [];
  if (days) parts.push(`${days}d`);
  if (hours) parts.push(`${hours}h`);
  if (minutes) parts.push(`${minutes}m`);
  if (seconds && !days) parts.push(`${seconds}s`);
  return parts.join(" ") || "0s";
}

/**
 * Pretty-print any value as JSON, falling back to String() for values
 * JSON cannot represent (e.g. circular structures).
 * @param {unknown} value
 * @returns {string}
 */
function prettyJson(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/**
 * Local time as HH:MM:SS, for log lines.
 * @param {Date} [date]
 * @returns {string}
 */
function timestamp(date = new Date()) {
  const pad = (n) => String(n).padStart(2, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/* ------------------------------------------------------------------ */
/* Networking                                                          */
/* ------------------------------------------------------------------ */

/**
 * fetch() with a timeout. Rejects with an Error whose message says what went
 * wrong (timeout, network error, or non-2xx status).
 * @param {string} url
 * @param {RequestInit & { timeoutMs?: number }} [options]
 * @returns {Promise<Response>}
 */
async function fetchWithTimeout(url, options = {}) {
  const { timeoutMs = 5000, ...init } = options;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    if (!response.ok) {
      throw new Error(`${url} responded ${response.status} ${response.statusText}`.trim());
    }
    return response;
  } catch (err) {
    if (err && err.name === "AbortError") {
      throw new Error(`${url} timed out after ${formatDuration(timeoutMs)}`);
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET a URL and parse the body as JSON.
 * @param {string} url
 * @param {{ timeoutMs?: number }} [options]
 * @returns {Promise<{ data: unknown, elapsedMs: number, size: number }>}
 */
async function getJson(url, options = {}) {
  const started = performance.now();
  const response = await fetchWithTimeout(url, {
    ...options,
    headers: { Accept: "application/json" },
    cache: "no-store",
  });
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${url} did not return valid JSON: ${err.message}`);
  }
  return { data, elapsedMs, size: new TextEncoder().encode(text).length };
}

/* ------------------------------------------------------------------ */
/* Page logic                                                          */
/* ------------------------------------------------------------------ */

function markScriptRan() {
  const status = $("#status");
  setText(status, "JavaScript ran");
  if (status) status.classList.add("ok");
}

async function showHealth() {
  const out = $("#health");
  if (!out) return;
  setText(out, "Loading /api/health ...");
  try {
    const { data, elapsedMs, size } = await getJson("/api/health");
    setText(out, prettyJson(data));
    out.title = `${formatBytes(size)} in ${formatDuration(elapsedMs)} at ${timestamp()}`;
  } catch (err) {
    setText(out, `Error: ${err && err.message ? err.message : err}`);
    out.classList.add("text-red-400");
  }
}

/** Highlight the nav link that points at the current page. */
function markCurrentNavLink() {
  const here = location.pathname.replace(/index\.html$/, "");
  for (const link of $$("nav a[href]")) {
    if (link.getAttribute("href") === here) {
      link.setAttribute("aria-current", "page");
      link.classList.add("font-bold");
    }
  }
}

onReady(() => {
  markScriptRan();
  markCurrentNavLink();
  showHealth();
});
