/** Runs the sandbox service over HTTP on 127.0.0.1 only. */
import http from 'node:http';
import type { Socket } from 'node:net';
import { createSandboxService, type SandboxOptions, type SandboxService } from './service';

export const SANDBOX_HOST = '127.0.0.1';

export interface SandboxServer {
  port: number;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** `http://127.0.0.1:PORT/api/v1/` */
  baseUrl: string;
  service: SandboxService;
  httpServer: http.Server;
  /** Stops listening and destroys open (keep-alive) connections. */
  close(): Promise<void>;
}

export type StartSandboxOptions = SandboxOptions & { port?: number };

export async function startSandbox(options: StartSandboxOptions): Promise<SandboxServer> {
  const { port: requestedPort = 0, ...serviceOptions } = options;
  const service = createSandboxService(serviceOptions);
  const server = http.createServer((req, res) => service.handle(req, res));
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(requestedPort, SANDBOX_HOST, () => {
      server.off('error', reject);
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('The sandbox server has no TCP address'));
        return;
      }
      const origin = `http://${SANDBOX_HOST}:${address.port}`;
      let closing: Promise<void> | undefined;
      resolve({
        port: address.port,
        origin,
        baseUrl: `${origin}/api/v1/`,
        service,
        httpServer: server,
        close() {
          closing ??= new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
            server.closeAllConnections();
          });
          return closing;
        },
      });
    });
  });
}
