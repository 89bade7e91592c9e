// Glue for running onebots' OneBot v11 specs against a plain OneBot server:
// onebots serves /{platform}/{account}/onebot/v11[/action] and GET /list;
// a plain implementation serves /[action] at the root. This only rewrites paths.
import http from 'node:http';
import net from 'node:net';
const [listen, target] = [Number(process.argv[2]), Number(process.argv[3])];
const strip = (url) => url.replace(/^\/[^/]+\/[^/]+\/onebot\/v11(?=\/|\?|$)/, '') || '/';
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/list') { res.writeHead(200, {'content-type': 'application/json'}); res.end('[]'); return; }
  const up = http.request({ host: '127.0.0.1', port: target, method: req.method, path: strip(req.url).replace(/^\?/, '/?'), headers: req.headers }, (r) => { res.writeHead(r.statusCode, r.headers); r.pipe(res); });
  up.on('error', () => { res.writeHead(502); res.end(); });
  req.pipe(up);
});
server.on('upgrade', (req, socket, head) => {
  const up = net.connect(target, '127.0.0.1', () => {
    let path = strip(req.url); if (path.startsWith('?')) path = '/' + path;
    let lines = `${req.method} ${path} HTTP/1.1\r\n`;
    for (let i = 0; i < req.rawHeaders.length; i += 2) lines += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
    up.write(lines + '\r\n'); up.write(head); socket.pipe(up); up.pipe(socket);
  });
  up.on('error', () => socket.destroy()); socket.on('error', () => up.destroy());
});
server.listen(listen, '127.0.0.1');
