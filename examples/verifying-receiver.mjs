// A receiver that accepts only calls signed by Punctual (Standard Webhooks), and handles each
// execution once even though retries repeat it (same webhook-id).
// Usage: PUNCTUAL_SIGNING_SECRET=whsec_... node examples/verifying-receiver.mjs [port]
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const port = Number(process.argv[2] ?? 9000);
const webhook = new Webhook(process.env.PUNCTUAL_SIGNING_SECRET);
const handled = new Set(); // webhook-ids already handled (keep them in your database)

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    let data;
    try {
      // Checks the HMAC over "webhook-id.webhook-timestamp.body" and that the timestamp is recent.
      data = webhook.verify(body, req.headers);
    } catch (err) {
      console.log(`rejected: ${err.message}`);
      res.statusCode = 401;
      res.end();
      return;
    }
    const id = req.headers['webhook-id'];
    if (handled.has(id)) {
      console.log(`duplicate ${id}: already handled`);
    } else {
      handled.add(id);
      console.log(`verified ${id} attempt ${req.headers['punctual-attempt']} job ${req.headers['punctual-job-id']}: ${JSON.stringify(data)}`);
    }
    res.end('ok');
  });
});
server.listen(port, '127.0.0.1', () => console.log(`verifying receiver on http://127.0.0.1:${server.address().port}`));
