"""A small Chrome DevTools Protocol client for the browser checks: starts headless Chromium with
a throw-away profile, drives its page over the websocket, collects page events, and lets a check
register handlers for events that need an answer (Fetch.requestPaused)."""
import fnmatch
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

import websocket  # websocket-client (Debian: python3-websocket)


class CheckFailed(Exception):
    pass


class SetupFailed(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# Chromium + DevTools protocol

def find_chromium(explicit):
    for c in ([explicit] if explicit else []) + ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']:
        p = shutil.which(c) if c else None
        if p:
            return p
    raise SetupFailed('no chromium found (apt-get install -y chromium, or pass --chromium PATH)')


class Browser:
    def __init__(self, binary, width, height, verbose=False):
        self.dir = tempfile.mkdtemp(prefix='fod-check-')
        args = [binary, '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                '--no-first-run', '--no-default-browser-check', '--disable-extensions', '--hide-scrollbars',
                '--disable-background-timer-throttling', '--disable-renderer-backgrounding',
                '--remote-debugging-port=0', '--remote-allow-origins=*', '--user-data-dir=' + self.dir,
                '--window-size=%d,%d' % (width, height), 'about:blank']
        self.log = open(os.path.join(self.dir, 'chromium.log'), 'wb')
        # Chromium's own temporary files go inside self.dir, and its helper processes share a
        # process group of their own, so that close() can stop them all and leave nothing behind.
        scratch = os.path.join(self.dir, 'tmp')
        os.mkdir(scratch)
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     env=dict(os.environ, TMPDIR=scratch), start_new_session=True)
        port_file = os.path.join(self.dir, 'DevToolsActivePort')
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SetupFailed('chromium exited with %s; log: %s' % (self.proc.returncode, self.tail_log()))
            if os.path.exists(port_file):
                lines = open(port_file).read().split('\n')
                if len(lines) >= 2 and lines[0].strip():
                    self.port = int(lines[0])
                    break
            time.sleep(0.1)
        else:
            raise SetupFailed('chromium did not open its DevTools port; log: ' + self.tail_log())
        targets = json.load(urllib.request.urlopen('http://127.0.0.1:%d/json/list' % self.port, timeout=10))
        page = next((t for t in targets if t.get('type') == 'page'), None)
        if not page:
            raise SetupFailed('no page target in chromium')
        self.ws = websocket.create_connection(page['webSocketDebuggerUrl'], timeout=30, suppress_origin=True)
        self.next_id = 0
        self.events = []
        self.verbose = verbose
        self.handlers = {}      # event method -> callback(params), run after the command that saw it
        self.pending = []
        self.dispatching = False
        self.replies = {}       # command id -> reply not yet taken
        self.intercepts = []    # (URL glob, callback) of paused requests

    def tail_log(self):
        try:
            with open(os.path.join(self.dir, 'chromium.log'), 'rb') as f:
                return f.read()[-2000:].decode('utf-8', 'replace')
        except OSError:
            return ''

    def stub_tiles(self, pattern='https://tile.openstreetmap.org/*'):
        """Answers the map's tile requests with 404 at once, so no test reaches the network (the
        page then draws its offline basemap, as it does offline); records each request's URL and
        headers in `self.tile_requests`."""
        self.tile_requests = []

        def answer(params):
            self.tile_requests.append(params.get('request', {}))
            try:
                self.send('Fetch.fulfillRequest', {'requestId': params['requestId'], 'responseCode': 404,
                                                   'responseHeaders': [{'name': 'Content-Type', 'value': 'text/plain'}], 'body': ''})
            except SetupFailed:
                pass  # the page dropped the tile meanwhile (a zoom, a navigation): nothing to answer
        self.intercept(pattern, answer)

    def intercept(self, url_pattern, callback):
        """Pauses every request whose URL matches the glob `url_pattern` and hands its
        Fetch.requestPaused params to `callback`, which must fulfil, fail or continue it."""
        self.intercepts = [(p, c) for p, c in self.intercepts if p != url_pattern] + [(url_pattern, callback)]
        self.on('Fetch.requestPaused', self._paused)
        self.send('Fetch.enable', {'patterns': [{'urlPattern': p, 'requestStage': 'Request'} for p, _ in self.intercepts]})

    def stop_intercepting(self, url_pattern):
        self.intercepts = [(p, c) for p, c in self.intercepts if p != url_pattern]
        if self.intercepts:
            self.send('Fetch.enable', {'patterns': [{'urlPattern': p, 'requestStage': 'Request'} for p, _ in self.intercepts]})
        else:
            self.send('Fetch.disable')

    def _paused(self, params):
        url = params.get('request', {}).get('url', '')
        for pattern, callback in self.intercepts:
            if fnmatch.fnmatchcase(url, pattern):
                callback(params)
                return
        self.send('Fetch.continueRequest', {'requestId': params['requestId']})

    def on(self, method, callback):
        """Calls `callback(params)` for every `method` event (it may send commands itself)."""
        self.handlers[method] = callback

    def send(self, method, params=None, timeout=30):
        """Sends a command and returns its result. Events that arrive meanwhile are recorded, and
        those with a handler are handled at once (a handler may send commands: replies are
        matched by id, so nested commands never take another's reply)."""
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({'id': mid, 'method': method, 'params': params or {}}))
        deadline = time.time() + timeout
        while mid not in self.replies:
            self.ws.settimeout(max(0.1, deadline - time.time()))
            try:
                msg = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                raise SetupFailed('no answer to %s within %ss' % (method, timeout))
            if 'id' in msg:
                self.replies[msg['id']] = msg
            elif 'method' in msg:
                self.events.append(msg)
                if msg['method'] in self.handlers:
                    self.pending.append(msg)
                    self.dispatch()
        msg = self.replies.pop(mid)
        if 'error' in msg:
            raise SetupFailed('%s failed: %s' % (method, msg['error']))
        return msg.get('result', {})

    def dispatch(self):
        if self.dispatching:
            return  # the outer dispatch loop takes it
        self.dispatching = True
        try:
            while self.pending:
                msg = self.pending.pop(0)
                self.handlers[msg['method']](msg.get('params', {}))
        finally:
            self.dispatching = False

    def eval(self, expr, **options):
        r = self.send('Runtime.evaluate', dict({'expression': expr, 'returnByValue': True, 'awaitPromise': True}, **options))
        if 'exceptionDetails' in r:
            raise SetupFailed('evaluating %r threw: %s' % (expr[:80], r['exceptionDetails'].get('text')))
        return r.get('result', {}).get('value')

    def wait_for(self, expr, timeout, what, poll=0.1):
        """Polls a JS expression until it is truthy; returns its value or raises CheckFailed."""
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            last = self.eval(expr)
            if last:
                return last
            time.sleep(poll)
        raise CheckFailed('timed out after %ss waiting for %s' % (timeout, what))

    def close(self):
        try:
            self.ws.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        try:  # helpers (renderer, GPU, zygote) that outlived the browser process
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def page_problems(events, include_network):
    """Uncaught exceptions, console.error/assert calls and (optionally network) error log entries."""
    out = []
    for e in events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.exceptionThrown':
            d = p.get('exceptionDetails', {})
            desc = (d.get('exception') or {}).get('description') or d.get('text')
            out.append('uncaught exception: %s' % desc)
        elif m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
            args = ' '.join(str(a.get('value', a.get('description', ''))) for a in p.get('args', []))
            out.append('console.%s: %s' % (p.get('type'), args))
        elif m == 'Log.entryAdded':
            entry = p.get('entry', {})
            if entry.get('level') == 'error' and (include_network or entry.get('source') != 'network'):
                out.append('log (%s): %s %s' % (entry.get('source'), entry.get('text'), entry.get('url', '')))
    return out
