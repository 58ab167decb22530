// The processes of one gateway instance (WEB_CONCURRENCY). The first accepts every connection on
// the port and hands them out in turn to itself and the others over IPC (node:child_process
// passes the socket's handle; the receiving process's http server takes it). That is
// node:cluster's round robin without its primary, a process that would only fork and pass
// sockets on (~45 MB); here the first process serves too. A process that exits is replaced under
// the same index; the others end when the first does (they see its IPC channel close).
//
// The first process also counts each client address's open connections over the whole instance
// (MAX_CONNECTIONS_PER_IP): at accept, and at close, which another process reports over IPC for
// the connections handed to it (the first's copy of a socket is closed once handed over).
import { fork, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server, type Socket } from "node:net";
import { addressKey, ConnectionsPerAddress } from "./connections-per-address";

/** The message that carries a connection's socket to another process (with its address when counted). */
export const CONNECTION = "gateway:connection";
/** Sent by another process once it can take connections. */
export const READY = "gateway:ready";
/** Sent by another process when a connection handed to it with its address closed. */
export const CLOSED = "gateway:closed";

/** Sent by a serving process that answered calls lately; the first process passes it on to its workers (the batch process). */
export const LIVE = "gateway:live";

/** `role`: a process that serves no connection (the batch process); absent for a serving one. */
type Peer = { index: number; proc: ChildProcess; ready: boolean; startedAt: number; role?: string };
type Say = (level: "info" | "error", msg: string) => void;
type Message = { type: string; id: number; address?: string };

/** The per-address cap: at most `max` open connections per client address; one more is `refuse`d. */
export type AddressCap = { max: number; refuse: (socket: Socket) => void };

/** The holder of the connections the first process serves itself. */
const SELF = Symbol("first process");

/** A process that dies this soon after it started is replaced after a pause, not at once. */
const QUICK_EXIT_MS = 5000;

export class ProcessGroup {
  private peers: Peer[] = [];
  private stopping = false;
  private turn = 0;
  private listener: Server | undefined;
  private perAddress: ConnectionsPerAddress<Peer | typeof SELF> | undefined;
  private refuse: ((socket: Socket) => void) | undefined;

  constructor(
    private readonly say: Say,
    /** Messages from the other processes other than READY (metrics). */
    private readonly onMessage: (proc: ChildProcess, message: Message) => void,
    /** Calls were answered lately: for batches run in this process (BATCH_PROCESS=false). */
    private readonly onLive?: () => void,
  ) {}

  /** Starts the other `count - 1` processes (indexes 1 to count - 1). */
  start(count: number): void {
    for (let i = 1; i < count; i++) this.fork(i);
  }

  /**
   * Starts a process that serves no connection (it never says READY) and does `role`'s work
   * (GATEWAY_PROCESS_ROLE), under the index after the serving ones, unless one runs already. It
   * is replaced like them when it fails; when it ends on its own (exit code 0: it had no more
   * work), it is not, and `ended` is called.
   */
  startWorker(index: number, role: string, ended?: () => void): void {
    if (this.stopping || this.peers.some((p) => p.role === role)) return;
    this.fork(index, { GATEWAY_PROCESS_ROLE: role }, ended);
  }

  others(): ChildProcess[] {
    return this.peers.map((p) => p.proc);
  }

  /** Calls were answered lately (in this process or another): the batches run here (onLive) and the processes that serve no connection are told. */
  live(): void {
    this.onLive?.();
    for (const p of this.peers) if (p.role && p.proc.connected) p.proc.send({ type: LIVE }, undefined, {}, () => undefined);
  }

  /**
   * Accepts connections and hands each, in turn, to `adopt` (this process) or to the next ready
   * process; with `cap`, a connection from an address that holds `cap.max` already is refused.
   */
  listen(port: number, host: string, adopt: (socket: Socket) => void, onListening: () => void, cap?: AddressCap): void {
    if (cap && cap.max > 0) {
      this.perAddress = new ConnectionsPerAddress(cap.max);
      this.refuse = cap.refuse;
    }
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
    const counts = this.perAddress;
    // Read now: a socket's address is gone once it is closed, or handed over.
    const address = counts ? addressKey(socket.remoteAddress ?? "") : undefined;
    if (counts && counts.full(address!)) return this.refuse!(socket);
    const here = () => {
      if (counts) {
        counts.add(address!, SELF);
        socket.once("close", () => counts.remove(address!, SELF));
      }
      adopt(socket);
    };
    const ready = this.peers.filter((p) => p.ready && p.proc.connected);
    const slot = this.turn++ % (ready.length + 1);
    if (slot === 0) return here();
    const peer = ready[slot - 1]!;
    counts?.add(address!, peer);
    peer.proc.send({ type: CONNECTION, address }, socket, { keepOpen: false }, (err) => {
      if (!err) return;
      counts?.remove(address!, peer);
      if (!socket.destroyed) here(); // that process went away meanwhile
    });
  }

  private fork(index: number, extraEnv: Record<string, string> = {}, ended?: () => void): void {
    const proc = fork(process.argv[1]!, process.argv.slice(2), { env: { ...process.env, ...extraEnv, GATEWAY_PROCESS_INDEX: String(index) } });
    const peer: Peer = { index, proc, ready: false, startedAt: Date.now(), role: extraEnv.GATEWAY_PROCESS_ROLE };
    this.peers.push(peer);
    proc.on("message", (message: Message) => {
      if (message?.type === READY) peer.ready = true;
      else if (message?.type === CLOSED) this.perAddress?.remove(message.address ?? "", peer);
      else if (message?.type === LIVE) this.live();
      else this.onMessage(proc, message);
    });
    proc.on("exit", (code, signal) => {
      this.peers = this.peers.filter((p) => p !== peer);
      this.perAddress?.removeAll(peer);
      if (this.stopping) return;
      if (peer.role && code === 0) return void ended?.();
      const pause = Date.now() - peer.startedAt < QUICK_EXIT_MS ? 1000 : 0;
      this.say("error", `gateway process ${proc.pid} exited (${signal ?? code}); starting another${pause ? ` in ${pause} ms` : ""}`);
      // A worker is started again through startWorker: one may have been started meanwhile.
      setTimeout(() => this.stopping || (peer.role ? this.startWorker(index, peer.role, ended) : this.fork(index, extraEnv)), pause);
    });
  }
}

/**
 * In another process: takes the connections the first process hands over, and reports the close
 * of each that came with its address (counted per address by the first process).
 */
export function receiveConnections(adopt: (socket: Socket) => void): void {
  process.on("message", (message: { type?: string; address?: string } | null, socket?: Socket) => {
    if (message?.type !== CONNECTION) return;
    const address = message.address;
    // The handle is gone when the connection closed before it was passed on (node then sends the
    // message alone): it is reported closed at once, or its address would stay counted.
    if (!socket) {
      if (address !== undefined && process.connected) process.send!({ type: CLOSED, address }, undefined, {}, () => undefined);
      return;
    }
    if (address !== undefined) {
      socket.once("close", () => {
        // Without a callback, a send on a closed channel (the first process is gone) would throw.
        if (process.connected) process.send!({ type: CLOSED, address }, undefined, {}, () => undefined);
      });
    }
    adopt(socket);
  });
}
