import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

/**
 * A PostgreSQL cluster of a test's own (Debian's `pg_createcluster` on a free port, trusting
 * local connections, `fsync=off`), so stopping or freezing it disturbs no other test and no
 * other engineer's server. It needs root and Debian's postgresql-common tools.
 */
export interface PrivateCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  url: string;
  /** `pg_ctlcluster … start|stop`. */
  ctl(action: "start" | "stop"): void;
  /**
   * Stops every process of the cluster with SIGSTOP (the postmaster and each of its children):
   * connections stay open and the kernel still accepts new ones, but nothing answers, as with
   * a network partition that drops packets or a disk that stalls.
   */
  freeze(): void;
  /** Lets every process frozen by `freeze` run again (SIGCONT). */
  thaw(): void;
  /** Thaws it if frozen, then stops and removes it. */
  drop(): void;
}

/** The installed PostgreSQL version whose cluster tools this machine has, or null. */
export function clusterVersion(): string | null {
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/pg_createcluster")) return null;
  const versions = existsSync("/etc/postgresql") ? readdirSync("/etc/postgresql") : [];
  return versions.sort().at(-1) ?? null;
}

/** A TCP port nothing listens on now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

/** The ids of the processes whose parent is `parent`, read from /proc. */
function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(join("/proc", entry, "stat"), "utf8");
    } catch {
      continue; // It ended meanwhile.
    }
    // "pid (comm) state ppid …": the command may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid === parent) children.push(Number(entry));
  }
  return children;
}

/** Creates (and, with `start`, starts) a cluster named `tidings_<prefix>_<random>`. */
export async function createPrivateCluster(
  version: string,
  prefix: string,
  options: { start: boolean },
): Promise<PrivateCluster> {
  const name = `tidings_${prefix}_${randomBytes(4).toString("hex")}`;
  const port = await freePort();
  execFileSync(
    "pg_createcluster",
    [
      version,
      name,
      "-p",
      String(port),
      "--pgoption",
      "fsync=off",
      ...(options.start ? ["--start"] : []),
      "--",
      "--auth-local=trust",
      "--auth-host=trust",
    ],
    { stdio: "ignore" },
  );
  const dataDirectory = (): string => {
    const line = execFileSync("pg_lsclusters", ["--no-header", version, name], {
      encoding: "utf8",
    });
    const directory = line.trim().split(/\s+/)[5];
    if (directory === undefined) throw new Error(`pg_lsclusters said nothing of ${name}`);
    return directory;
  };
  let frozen: number[] = [];
  const thaw = () => {
    // The postmaster last: its children are running again before it can look at them.
    for (const pid of [...frozen].reverse()) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // It ended meanwhile.
      }
    }
    frozen = [];
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    ctl(action) {
      execFileSync("pg_ctlcluster", ["--skip-systemctl-redirect", version, name, action], {
        stdio: "ignore",
      });
    },
    freeze() {
      const pidFile = readFileSync(join(dataDirectory(), "postmaster.pid"), "utf8");
      const postmaster = Number(pidFile.split("\n")[0]);
      // The postmaster first, so it starts no process that would escape the freeze.
      process.kill(postmaster, "SIGSTOP");
      frozen.push(postmaster);
      for (const pid of childrenOf(postmaster)) {
        try {
          process.kill(pid, "SIGSTOP");
          frozen.push(pid);
        } catch {
          // It ended meanwhile.
        }
      }
    },
    thaw,
    drop() {
      thaw();
      execFileSync("pg_dropcluster", ["--stop", version, name], { stdio: "ignore" });
    },
  };
}
