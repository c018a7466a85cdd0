// A tiny HTTP receiver for trying Punctual: prints every call it gets and answers 200.
// Usage: node examples/receiver.mjs [port]   (default 9000)
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 9000);
createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    console.log(`${new Date().toISOString()} ${req.method} ${req.url} ${req.headers['user-agent']} ${body}`);
    res.end('ok');
  });
}).listen(port, '127.0.0.1', () => console.log(`receiver listening on http://127.0.0.1:${port}`));
