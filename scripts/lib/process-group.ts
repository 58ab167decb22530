// The processes of one gateway instance (WEB_CONCURRENCY). The first accepts every connection on
// the port and hands them out in turn to itself and the others over IPC (node:child_process
// passes the socket's handle; the receiving process's http server takes it). That is
// node:cluster's round robin without its primary, a process that would only fork and pass
// sockets on (~45 MB); here the first process serves too. A process that exits is replaced under
// the same index; the others end when the first does (they see its IPC channel close).
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";

/** The message that carries a connection's socket to another process. */
export const CONNECTION = "gateway:connection";
/** Sent by another process once it can take connections. */
export const READY = "gateway:ready";

type Peer = { index: number; proc: ChildProcess; ready: boolean; startedAt: number };
type Say = (level: "info" | "error", msg: string) => void;

/** A process that dies this soon after it started is replaced after a pause, not at once. */
const QUICK_EXIT_MS = 5000;

export class ProcessGroup {
  private peers: Peer[] = [];
  private stopping = false;
  private turn = 0;
  private listener: Server | undefined;

  constructor(
    private readonly say: Say,
    /** Messages from the other processes other than READY (metrics). */
    private readonly onMessage: (proc: ChildProcess, message: { type: string; id: number }) => void,
  ) {}

  /** Starts the other `count - 1` processes (indexes 1 to count - 1). */
  start(count: number): void {
    for (let i = 1; i < count; i++) this.fork(i);
  }

  others(): ChildProcess[] {
    return this.peers.map((p) => p.proc);
  }

  /** Accepts connections and hands each, in turn, to `adopt` (this process) or to the next ready process. */
  listen(port: number, host: string, adopt: (socket: Socket) => void, onListening: () => void): void {
    const listener = createServer({ pauseOnConnect: true }, (socket) => this.handOut(socket, adopt));
    listener.on("error", (err) => {
      this.say("error", `cannot listen on ${host}:${port}: ${err.message}`);
      process.exit(1);
    });
    listener.listen(port, host, onListening);
    this.listener = listener;
  }

  /** Stops accepting and tells every other process to drain (SIGTERM); resolves once they exited (SIGKILL after `graceMs`). */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    this.listener?.close();
    const running = this.peers.filter((p) => p.proc.exitCode === null && p.proc.signalCode === null);
    const exited = Promise.all(running.map((p) => once(p.proc, "exit")));
    for (const p of running) p.proc.kill("SIGTERM");
    const timer = setTimeout(() => {
      for (const p of running) p.proc.kill("SIGKILL");
    }, graceMs);
    await exited;
    clearTimeout(timer);
  }

  private handOut(socket: Socket, adopt: (socket: Socket) => void): void {
    const ready = this.peers.filter((p) => p.ready && p.proc.connected);
    const slot = this.turn++ % (ready.length + 1);
    if (slot === 0) return adopt(socket);
    ready[slot - 1]!.proc.send({ type: CONNECTION }, socket, { keepOpen: false }, (err) => {
      if (err && !socket.destroyed) adopt(socket); // that process went away meanwhile
    });
  }

  private fork(index: number): void {
    const proc = fork(process.argv[1]!, process.argv.slice(2), { env: { ...process.env, GATEWAY_PROCESS_INDEX: String(index) } });
    const peer: Peer = { index, proc, ready: false, startedAt: Date.now() };
    this.peers.push(peer);
    proc.on("message", (message: { type: string; id: number }) => {
      if (message?.type === READY) peer.ready = true;
      else this.onMessage(proc, message);
    });
    proc.on("exit", (code, signal) => {
      this.peers = this.peers.filter((p) => p !== peer);
      if (this.stopping) return;
      const pause = Date.now() - peer.startedAt < QUICK_EXIT_MS ? 1000 : 0;
      this.say("error", `gateway process ${proc.pid} exited (${signal ?? code}); starting another${pause ? ` in ${pause} ms` : ""}`);
      setTimeout(() => this.stopping || this.fork(index), pause);
    });
  }
}
