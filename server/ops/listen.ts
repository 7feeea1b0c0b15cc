/**
 * A server that cannot listen says why in one line, with what to change (the port, HOST, rights).
 */
import { firstLine } from './log';

/** The server could not listen (port in use, address not on this machine, ...): `message` is one line. */
export class ListenError extends Error {
  override name = 'ListenError';
  constructor(message: string, readonly code: string | undefined) {
    super(message);
  }
}

export function listenErrorMessage(e: NodeJS.ErrnoException, host: string, port: number): string {
  const at = `${host}:${port}`;
  switch (e.code) {
    case 'EADDRINUSE': return `cannot listen on ${at}: the port is in use (another server?); stop it or set PORT to a free port`;
    case 'EACCES': return `cannot listen on ${at}: permission denied; use a port above 1023 or run with the right to bind it`;
    case 'EADDRNOTAVAIL': return `cannot listen on ${at}: ${host} is not an address of this machine; set HOST to one of its addresses, 127.0.0.1 or 0.0.0.0`;
    case 'ENOTFOUND': case 'EAI_AGAIN': return `cannot listen on ${at}: host name ${host} does not resolve; set HOST to an IP address such as 127.0.0.1 or 0.0.0.0`;
    default: return `cannot listen on ${at}: ${e.code ?? ''} ${firstLine(e)}`.replace(/ +/g, ' ');
  }
}
