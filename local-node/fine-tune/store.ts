// Where fine-tuning lives on disk: uploaded files, jobs (with their events and checkpoints),
// the saved training states and the tuned models, under the node's data dir. Everything is
// loaded at start and written back with atomic renames, so a node killed at any moment finds a
// consistent copy when it starts again.
import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EventObject, FileObject, JobRecord, TunedModelEntry } from "./types";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export function randomId(prefix: string, length = 24): string {
  const bytes = randomBytes(length);
  return `${prefix}${Array.from(bytes, (b) => BASE62[b % 62]).join("")}`;
}

/** A job's event id, the same whenever the same event is written again (after a restart). */
export function eventId(jobId: string, key: string): string {
  return `ftevent-${createHash("sha256").update(`${jobId}|${key}`).digest("base64url").replace(/[-_]/g, "").slice(0, 24)}`;
}

export const now = () => Math.floor(Date.now() / 1000);

function writeAtomic(path: string, data: string | Buffer): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, path);
}

function readJsonFile<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, "utf8")) as T;
  } catch {
    return undefined;
  }
}

export class FineTuneStore {
  readonly files = new Map<string, FileObject>();
  readonly jobs = new Map<string, JobRecord>();
  readonly models = new Map<string, TunedModelEntry>();
  private readonly filesDir: string;
  private readonly jobsDir: string;

  constructor(readonly dir: string) {
    this.filesDir = join(dir, "files");
    this.jobsDir = join(dir, "jobs");
    mkdirSync(this.filesDir, { recursive: true });
    mkdirSync(this.jobsDir, { recursive: true });
    for (const name of readdirSync(this.filesDir)) {
      if (!name.endsWith(".json")) continue;
      const file = readJsonFile<FileObject>(join(this.filesDir, name));
      if (file && existsSync(this.fileDataPath(file.id))) this.files.set(file.id, file);
    }
    for (const id of readdirSync(this.jobsDir)) {
      const record = readJsonFile<JobRecord>(join(this.jobsDir, id, "job.json"));
      if (record) this.jobs.set(id, record);
    }
    for (const m of readJsonFile<TunedModelEntry[]>(join(dir, "models.json")) ?? []) this.models.set(m.id, m);
  }

  // ---- files ----

  private fileDataPath(id: string): string {
    return join(this.filesDir, `${id}.data`);
  }

  addFile(filename: string, purpose: string, data: Buffer): FileObject {
    const file: FileObject = {
      id: randomId("file-"), object: "file", bytes: data.length, created_at: now(), filename, purpose,
      status: "processed", status_details: null, expires_at: null,
    };
    writeAtomic(this.fileDataPath(file.id), data);
    writeAtomic(join(this.filesDir, `${file.id}.json`), JSON.stringify(file));
    this.files.set(file.id, file);
    return file;
  }

  fileData(id: string): Buffer {
    return readFileSync(this.fileDataPath(id));
  }

  deleteFile(id: string): void {
    this.files.delete(id);
    rmSync(join(this.filesDir, `${id}.json`), { force: true });
    rmSync(this.fileDataPath(id), { force: true });
  }

  // ---- jobs ----

  jobDir(id: string): string {
    return join(this.jobsDir, id);
  }

  saveJob(record: JobRecord): void {
    this.jobs.set(record.job.id, record);
    mkdirSync(this.jobDir(record.job.id), { recursive: true });
    writeAtomic(join(this.jobDir(record.job.id), "job.json"), JSON.stringify(record));
  }

  /** Adds an event once (an event written again after a restart keeps its first copy). */
  addEvent(record: JobRecord, key: string, step: number, event: Omit<EventObject, "id" | "object" | "created_at">): void {
    const id = eventId(record.job.id, key);
    if (record.events.some((e) => e.id === id)) return;
    record.events.push({ id, object: "fine_tuning.job.event", created_at: now(), ...event, step });
  }

  writeState(record: JobRecord, name: string, state: Buffer): string {
    const path = join(this.jobDir(record.job.id), name);
    writeAtomic(path, state);
    return name;
  }

  readState(jobId: string, name: string): Buffer {
    return readFileSync(join(this.jobDir(jobId), name));
  }

  // ---- tuned models ----

  addModel(entry: TunedModelEntry): void {
    this.models.set(entry.id, entry);
    this.saveModels();
  }

  deleteModel(id: string): void {
    this.models.delete(id);
    this.saveModels();
  }

  private saveModels(): void {
    writeAtomic(join(this.dir, "models.json"), JSON.stringify([...this.models.values()]));
  }
}
