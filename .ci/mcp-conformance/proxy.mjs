// Forwards every request on 127.0.0.1:<listen port> to the Hoplink server,
// adding "Authorization: Bearer <key>", because the conformance suite's
// server mode sends no credentials. The keys (comma-separated) are used in
// turn, one a request, so that the suite's requests spread over several
// keys' allowances (60 requests a minute each); a request in a session
// (Mcp-Session-Id) uses the key that opened the session, as a real client
// keeps its credential, since the server binds a session to its key. The
// Host and Origin headers are forwarded as sent, so the DNS rebinding
// scenario reaches the server's own host and origin checks.
//
// Usage: node proxy.mjs <listen port> <target base URL> <key>[,<key>...]
import http from 'node:http';

const [port, target, keyList] = process.argv.slice(2);
const keys = keyList.split(',');
const base = new URL(target);
let turn = 0;
const sessionKeys = new Map(); // Mcp-Session-Id -> the key that opened it

http
  .createServer((req, res) => {
    const session = req.headers['mcp-session-id'];
    const key = sessionKeys.get(session) ?? keys[turn++ % keys.length];
    const headers = { ...req.headers, authorization: `Bearer ${key}` };
    const out = http.request(
      { host: base.hostname, port: base.port, path: req.url, method: req.method, headers },
      (answer) => {
        const opened = answer.headers['mcp-session-id'];
        if (opened) sessionKeys.set(opened, key);
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', (err) => {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
    req.pipe(out);
  })
  .listen(Number(port), '127.0.0.1', () => console.log(`proxy on ${port} -> ${target}`));
