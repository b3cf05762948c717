/**
 * Raw HTTP/1.1 over a TCP socket, for what fetch will not send: a body shorter than its
 * Content-Length, an odd Host header. Resolves with everything received until the server
 * closes the connection or `waitMs` passes.
 */
export async function rawExchange(port: number, request: string, waitMs = 10_000): Promise<{ text: string; closedByServer: boolean }> {
  let text = "";
  let closedByServer = false;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => (done = resolve));
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, chunk) {
        text += new TextDecoder().decode(chunk);
      },
      close() {
        closedByServer = true;
        done();
      },
      error() {
        done();
      },
    },
  });
  socket.write(request);
  const timer = setTimeout(done, waitMs);
  await finished;
  clearTimeout(timer);
  socket.end();
  return { text, closedByServer };
}

export const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);
