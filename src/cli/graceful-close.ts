/**
 * Closing a connection without resetting it. `socket.destroy()` closes the descriptor at once:
 * if the client has sent anything the process has not read (a request written just as the
 * connection went idle), the kernel answers with a reset instead of a close, and the client
 * may lose what it had not yet read. So the process's side is shut first (FIN), whatever the
 * client still sends is read, and the socket is destroyed once the client has closed its side
 * too, or after `lingerMs` at most: a client that never closes is not waited for longer.
 */
import type { Socket } from 'node:net';

export function closeGracefully(socket: Socket, lingerMs: number): void {
  if (socket.destroyed) return;
  const lingering = setTimeout(() => socket.destroy(), lingerMs);
  lingering.unref();
  socket.once('close', () => clearTimeout(lingering));
  // Read to the client's end: bytes left unread would turn the close into a reset.
  socket.once('end', () => socket.destroy());
  socket.end();
}
