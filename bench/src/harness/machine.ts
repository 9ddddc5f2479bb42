import { readFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";

/** What a result was measured on, written above every section of RESULTS.md. */
export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  date: string;
}

/** The CPU model as /proc/cpuinfo names it (os.cpus() where /proc is missing). */
function cpuModel(): string {
  try {
    const line = readFileSync("/proc/cpuinfo", "utf8")
      .split("\n")
      .find((l) => l.startsWith("model name"));
    if (line) return line.slice(line.indexOf(":") + 1).trim();
  } catch {
    // Not Linux: fall through to what Node reports.
  }
  return cpus()[0]?.model ?? "unknown";
}

/** The machine this process runs on. */
export function describeMachine(): Machine {
  return {
    cores: cpus().length,
    cpuModel: cpuModel(),
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    date: new Date().toISOString(),
  };
}

/** One Markdown line naming the machine, the Node version, the command and the date. */
export function machineLine(machine: Machine, command: string): string {
  return [
    `Machine: ${machine.cores} cores (\`nproc\`), ${machine.cpuModel}, ${machine.memoryGiB} GiB`,
    `Node ${machine.node}`,
    `command \`${command}\``,
    `date ${machine.date}`,
  ].join(" · ");
}

/**
 * CPU time a process has used so far (user plus system, from /proc/PID/stat), in ms; `null`
 * off Linux. Taken before and after a run, it gives the CPU a request costs the server, a
 * figure that holds up on a busy machine far better than requests per second do.
 */
export function cpuMs(pid: number): number | null {
  try {
    return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** User plus system CPU time in ms from a /proc/PID/stat line. */
function cpuMsOfStat(stat: string): number | null {
  // Fields after the command name (which may hold spaces) start at state, field 3.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * (1000 / CLOCK_TICKS_PER_S) : null;
}

/** `getconf CLK_TCK`: 100 on every Linux Node runs on. */
const CLOCK_TICKS_PER_S = 100;
