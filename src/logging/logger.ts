import type { LogLevel } from "../config/options";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Field names whose values never reach a log line, whatever a caller passes. */
const SECRET_FIELDS = /^(authorization|api_?key|password|secret|token|cookie|x-service-api-key)$/i;

export type LogFields = Record<string, unknown>;
export type LogSink = (line: string) => void;

/**
 * Structured JSON logs, one object per line. Children carry context (request_id, workspace)
 * so call sites only pass what is new.
 */
export class Logger {
  constructor(
    private readonly level: LogLevel,
    private readonly sink: LogSink = (line) => process.stdout.write(line + "\n"),
    private readonly context: LogFields = {},
  ) {}

  child(fields: LogFields): Logger {
    return new Logger(this.level, this.sink, { ...this.context, ...fields });
  }

  debug(msg: string, fields?: LogFields) {
    this.write("debug", msg, fields);
  }
  info(msg: string, fields?: LogFields) {
    this.write("info", msg, fields);
  }
  warn(msg: string, fields?: LogFields) {
    this.write("warn", msg, fields);
  }
  error(msg: string, fields?: LogFields) {
    this.write("error", msg, fields);
  }

  private write(level: Exclude<LogLevel, "silent">, msg: string, fields?: LogFields) {
    if (RANK[level] < RANK[this.level]) return;
    const record: LogFields = { time: new Date().toISOString(), level, msg, ...this.context, ...fields };
    this.sink(JSON.stringify(record, redact));
  }
}

function redact(key: string, value: unknown): unknown {
  if (SECRET_FIELDS.test(key)) return "[redacted]";
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}
