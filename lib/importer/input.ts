import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { parse } from "csv-parse/sync";
import type { CreateLeadRequest } from "@/lib/client/index";
import { createLeadBody } from "@/lib/leads/schemas";

/**
 * Reading the input: a CSV file with the API's own field names as its header
 * (`referrerCustomerId` for the object form of `referrer`; an empty cell omits the
 * field) or JSON Lines with one API body per line.
 */

/**
 * CSV columns, in the order results files list them: the API's own field names (from
 * the service's schema), with `referrerCustomerId` after `referrer` for its object form.
 */
export const CSV_COLUMNS: readonly string[] = Object.keys(createLeadBody.shape).flatMap((field) =>
  field === "referrer" ? [field, "referrerCustomerId"] : [field],
);

export interface InputRow {
  /** CSV: the data record's number (the first record after the header is 1); JSON Lines: the line number. */
  row: number;
  /** The row as written, by CSV column (JSON Lines bodies flattened to the same columns). */
  fields: Record<string, string>;
  /** The API body, or null with the reason no body could be formed from the row. */
  body: CreateLeadRequest | null;
  problem: string | null;
}

export interface Input {
  rows: InputRow[];
  /** Column names for the results files: the CSV header, or CSV_COLUMNS for JSON Lines. */
  columns: string[];
  /** SHA-256 of the file's bytes, recorded in the ledger. */
  sha256: string;
}

export class InputError extends Error {}

export async function readInput(file: string): Promise<Input> {
  const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`Cannot read ${file}: ${error.code ?? error.message}`);
  });
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const text = bytes.toString("utf8");
  if (/\.csv$/i.test(file)) return { ...readCsv(text), sha256 };
  if (/\.(jsonl|ndjson)$/i.test(file)) return { rows: readJsonLines(text), columns: [...CSV_COLUMNS], sha256 };
  throw new InputError(`${file}: the name must end in .csv, .jsonl or .ndjson`);
}

function readCsv(text: string): Omit<Input, "sha256"> {
  let records: string[][];
  try {
    records = parse(text, { bom: true, skip_empty_lines: true, relax_column_count: false });
  } catch (error) {
    throw new InputError(`Not a readable CSV file: ${(error as Error).message}`);
  }
  const [header = [], ...data] = records;
  const columns = header.map((name) => name.trim());
  const unknown = columns.filter((name) => !CSV_COLUMNS.includes(name));
  if (unknown.length)
    throw new InputError(
      `Unknown CSV column(s): ${unknown.join(", ")}. Columns are the API's field names: ${CSV_COLUMNS.join(", ")}`,
    );
  if (new Set(columns).size !== columns.length) throw new InputError("A CSV column is named twice");
  for (const required of ["leadName", "leadMobileNumber"]) {
    if (!columns.includes(required)) throw new InputError(`The CSV header has no ${required} column`);
  }
  if (!columns.includes("referrer") && !columns.includes("referrerCustomerId")) {
    throw new InputError("The CSV header has neither a referrer nor a referrerCustomerId column");
  }
  const rows = data.map((cells, index) => {
    const fields = Object.fromEntries(columns.map((name, i) => [name, cells[i]]));
    return { row: index + 1, fields, ...csvBody(fields) };
  });
  return { rows, columns };
}

function csvBody(fields: Record<string, string>): Pick<InputRow, "body" | "problem"> {
  const present = Object.entries(fields).filter(([, value]) => value !== "");
  const body: Record<string, unknown> = Object.fromEntries(present);
  if ("referrer" in body && "referrerCustomerId" in body)
    return { body: null, problem: "Both referrer and referrerCustomerId are filled in" };
  if ("referrerCustomerId" in body) {
    body.referrer = { customerId: body.referrerCustomerId };
    delete body.referrerCustomerId;
  }
  return { body: body as unknown as CreateLeadRequest, problem: null };
}

function readJsonLines(text: string): InputRow[] {
  const rows: InputRow[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (!line.trim()) return;
    let body: unknown;
    try {
      body = JSON.parse(line);
    } catch {
      body = undefined;
    }
    const row = index + 1;
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      rows.push({ row, fields: {}, body: null, problem: "Not a JSON object" });
      return;
    }
    rows.push({
      row,
      fields: flatten(body as Record<string, unknown>),
      body: body as CreateLeadRequest,
      problem: null,
    });
  });
  return rows;
}

/** A JSON body as CSV cells: the object referrer as referrerCustomerId, anything else not a string as JSON. */
function flatten(body: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body)) {
    const ref =
      name === "referrer" && value && typeof value === "object" ? (value as { customerId?: unknown }) : undefined;
    if (ref && typeof ref.customerId === "string" && Object.keys(ref).length === 1)
      fields.referrerCustomerId = ref.customerId;
    else fields[name] = typeof value === "string" ? value : JSON.stringify(value);
  }
  return fields;
}
