import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Route = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A loopback HTTP server the tests download sources from. Serve a buffer at a path with
 * `serve`, or any behaviour (redirects, statuses, slow or endless bodies) with `route`.
 */
export class FixtureServer {
  readonly #routes = new Map<string, Route>();
  #server: Server | undefined;
  #base = '';

  async start(host = '127.0.0.1'): Promise<this> {
    this.#server = createServer((request, response) => {
      const route = this.#routes.get((request.url ?? '/').split('?')[0] ?? '/');
      if (route) route(request, response);
      else response.writeHead(404).end('not found');
    });
    await new Promise<void>((resolve) => this.#server?.listen(0, host, resolve));
    const { port } = this.#server.address() as AddressInfo;
    this.#base = `http://${host}:${port}`;
    return this;
  }

  url(path: string): string {
    return `${this.#base}${path}`;
  }

  serve(path: string, body: Buffer | string, contentType = 'application/octet-stream'): string {
    return this.route(path, (_request, response) => {
      response.writeHead(200, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
      response.end(body);
    });
  }

  route(path: string, route: Route): string {
    this.#routes.set(path, route);
    return this.url(path);
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()));
  }
}
