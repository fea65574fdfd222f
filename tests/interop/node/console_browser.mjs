// Headless Chromium for the web console's test (tests/interop/test_console.py; the console is
// described in docs/observability.md). The test drives the Kafka side and the waiting; this
// process only holds the browser: one JSON command per stdin line, one JSON answer per stdout
// line, in order:
//   {"cmd": "open", "url": ..., "width": 1366, "height": 768}  -> {"ok": true}
//   {"cmd": "eval", "expr": "<JS expression>"}                 -> {"ok": true, "value": ...}
//   {"cmd": "screenshot", "path": ...}                         -> {"ok": true}
//   {"cmd": "problems"} -> {"ok": true, "value": {"console", "pageErrors", "failed", "urls"}}
//   {"cmd": "close"}                                           -> {"ok": true}, then exit 0
// A command that fails answers {"ok": false, "error": ...}.
//
// Everything that went wrong in the page is recorded from the start, so the test can ask for it
// at the end: console errors and warnings, uncaught exceptions, requests that failed or got an
// HTTP error, and every URL the page asked for (it may only load its own files and the API).
import { createInterface } from 'node:readline'
import puppeteer from 'puppeteer-core'

let browser = null
let page = null
let closing = false
const problems = { console: [], pageErrors: [], failed: [], urls: [] }

async function open ({ url, width = 1366, height = 768 }) {
  if (!browser) {
    browser = await puppeteer.launch({
      executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
      headless: true,
      // Root in a container: no sandbox. /dev/shm may be tiny there.
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
      protocolTimeout: 60000
    })
  }
  page = await browser.newPage()
  await page.setViewport({ width, height })
  page.on('console', m => {
    if (m.type() === 'error' || m.type() === 'warn') problems.console.push(`${m.type()}: ${m.text()}`)
  })
  page.on('pageerror', e => problems.pageErrors.push(String(e && e.stack ? e.stack : e)))
  page.on('request', r => problems.urls.push(r.url()))
  page.on('requestfailed', r => {
    // A request of a page being closed is cancelled: that is not the page's fault.
    if (!closing) problems.failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`)
  })
  page.on('response', r => {
    if (r.status() >= 400) problems.failed.push(`${r.request().method()} ${r.url()}: HTTP ${r.status()}`)
  })
  await page.goto(url, { waitUntil: 'load', timeout: 30000 })
}

const commands = {
  open,
  eval: ({ expr }) => page.evaluate(expr),
  screenshot: ({ path }) => page.screenshot({ path }).then(() => null),
  problems: () => problems,
  close: async () => {
    closing = true
    if (browser) await browser.close()
    browser = null
  }
}

// One command at a time, answered in order: the test waits for each answer.
const rl = createInterface({ input: process.stdin })
let queue = Promise.resolve()
rl.on('line', line => {
  if (!line.trim()) return
  queue = queue.then(async () => {
    let answer
    try {
      const req = JSON.parse(line)
      const f = commands[req.cmd]
      if (!f) throw new Error(`unknown command ${req.cmd}`)
      const value = await f(req)
      answer = { ok: true, value: value === undefined ? null : value }
    } catch (e) {
      answer = { ok: false, error: String(e && e.stack ? e.stack : e) }
    }
    process.stdout.write(JSON.stringify(answer) + '\n')
  })
})
rl.on('close', () => queue.then(commands.close).finally(() => process.exit(0)))
