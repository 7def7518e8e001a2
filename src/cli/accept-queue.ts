/**
 * How many connections the kernel has completed on a listening port and holds for the process
 * to accept. Linux shows it as the receive queue of the port's LISTEN socket in /proc/net/tcp
 * and /proc/net/tcp6 (what `ss -l` prints as Recv-Q); undefined where neither can be read.
 * Every LISTEN socket on the port in this network namespace counts: another listener on the
 * same port and a different address makes it larger, which only makes the drain wait longer.
 */
import { readFileSync } from 'node:fs';

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
/** A socket's state in those tables: 0A is LISTEN. */
const LISTEN_STATE = '0A';

export function queuedConnections(port: number): number | undefined {
  let readable = false;
  let queued = 0;
  for (const table of TABLES) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
      readable = true;
    } catch {
      continue;
    }
    // "sl local_address rem_address st tx_queue:rx_queue …", addresses as HEXIP:HEXPORT.
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state, queues] = line.trim().split(/\s+/);
      if (state !== LISTEN_STATE || !local || !queues) continue;
      if (Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16) !== port) continue;
      queued += Number.parseInt(queues.slice(queues.indexOf(':') + 1), 16);
    }
  }
  return readable ? queued : undefined;
}
