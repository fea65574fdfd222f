// Mirra's web console (docs/observability.md): asks the broker's JSON API
// (/v1/mirrors, /v1/history, /v1/topics, /v1/groups) every second and redraws the page from
// the answers. Plain JS without a build step, since the broker serves this file as it is.
//
// Topic, group and mirror names and error messages come from clients: they reach the DOM only
// as text (textContent, attribute values), never as HTML.
//
// For the tests (tests/interop/test_console.py) the DOM carries the figures as data attributes:
// partition rows data-mirror/-topic/-partition/-state/-lag, the chart data-points (points
// drawn), group rows data-group/-lag, and body data-updated (successful refreshes).
'use strict'

const REFRESH_MS = 1000
// Longer than the broker's own 5 s limit, after which it answers 503 itself.
const TIMEOUT_MS = 8000
const ENDPOINTS = ['/v1/mirrors', '/v1/history', '/v1/topics', '/v1/groups']
// Badge order; states the broker adds later are shown after these.
const STATES = ['PREPARING', 'MIRRORING', 'PAUSED', 'STOPPING', 'STOPPED', 'FAILED', 'NOT_MIRRORED']
const COLORS = ['#2563eb', '#d97706', '#059669', '#9333ea', '#dc2626', '#0891b2', '#65a30d',
  '#db2777']
const CHART_HEIGHT = 160
// Tick steps of the records axis: 1, 2, 5, 10, 20, 50... (a record is not divided).
const WHOLE = [1, 2, 5].flatMap(m => [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9].map(p => m * p))
  .sort((a, b) => a - b)

const $ = sel => document.querySelector(sel)

// The last good answer of each endpoint: a failed request leaves its section as it was.
const last = { mirrors: null, history: null, topics: null, groups: null }
const status = { updated: 0, lastOkMs: 0, error: null }
const openGroups = new Set() // groups whose per-partition rows are shown
let chart = null
let chartKey = '' // the chart's series; another set of mirrors needs a new chart

// --- DOM and formatting helpers ---------------------------------------------------------

// el('td', {class: 'num', data: {lag: 3}}, 'text', node, ...): strings become text nodes.
function el (tag, attrs, ...children) {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue
    if (k === 'class') e.className = v
    else if (k === 'data') for (const [dk, dv] of Object.entries(v)) e.dataset[dk] = String(dv)
    else if (k === 'onclick') e.addEventListener('click', v)
    else e.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue
    e.append(c instanceof Node ? c : String(c))
  }
  return e
}

const known = n => typeof n === 'number' && n >= 0 // -1 is the API's "unknown"
const fmtCount = n => known(n) ? Math.round(n).toLocaleString('en-US') : '–'

function fmtBytes (n) {
  if (!known(n)) return '–'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let i = 0
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++ }
  return (i === 0 ? String(Math.round(n)) : n.toFixed(n < 10 ? 1 : 0)) + ' ' + units[i]
}

function fmtMs (ms) {
  if (!known(ms)) return '–'
  if (ms < 1000) return `${Math.round(ms)} ms`
  if (ms < 60000) return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`
  if (ms < 3600000) return `${(ms / 60000).toFixed(1)} min`
  return `${(ms / 3600000).toFixed(1)} h`
}

// A sync round takes microseconds when there is nothing to do.
const fmtUs = us => known(us) && us < 1000 ? `${Math.round(us)} µs` : fmtMs(known(us) ? us / 1000 : -1)

// An epoch-ms time as "3 s ago"; 0 or -1 mean it never happened.
function ago (ms) {
  if (!(ms > 0)) return 'never'
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000))
  if (s < 120) return `${s} s ago`
  if (s < 7200) return `${Math.round(s / 60)} min ago`
  return new Date(ms).toLocaleString()
}

const td = (text, cls) => el('td', { class: cls }, text)
const num = text => td(text, 'num')

// Long errors stay on one line; the whole text is in the tooltip.
const errorCell = text =>
  el('td', { class: 'error', title: text || null }, text ? el('span', { class: 'clip' }, text) : null)

const emptyRow = (columns, text) => el('tr', {}, el('td', { colspan: columns, class: 'empty' }, text))
const byName = key => (a, b) => String(a[key]).localeCompare(String(b[key]))
const byTopicPartition = (a, b) => a.topic.localeCompare(b.topic) || a.partition - b.partition

// --- fetching ---------------------------------------------------------------------------

class ApiError extends Error {
  constructor (path, why) {
    super(`${path}: ${why}`)
    this.path = path
    this.why = why
  }
}

// "broker busy (HTTP 503)" when every endpoint failed so, else per endpoint.
function describeErrors (errors) {
  const paths = new Map()
  for (const e of errors) paths.set(e.why, (paths.get(e.why) || []).concat(e.path))
  return [...paths].map(([why, p]) => p.length === ENDPOINTS.length ? why : `${p.join(', ')}: ${why}`)
    .join('; ')
}

async function getJson (path) {
  const abort = new AbortController()
  const timer = setTimeout(() => abort.abort(), TIMEOUT_MS)
  let r
  try {
    r = await fetch(path, { signal: abort.signal, cache: 'no-store',
      headers: { Accept: 'application/json' } })
  } catch (e) {
    const why = e.name === 'AbortError' ? `no answer in ${TIMEOUT_MS / 1000} s` : 'broker unreachable'
    throw new ApiError(path, why)
  } finally {
    clearTimeout(timer)
  }
  if (!r.ok) {
    const why = { 401: 'authentication needed', 403: 'not authorized', 503: 'broker busy' }[r.status] ||
      'failed'
    throw new ApiError(path, `${why} (HTTP ${r.status})`)
  }
  try {
    return await r.json()
  } catch (e) {
    throw new ApiError(path, 'not JSON')
  }
}

// One round: all four requests at once. A round counts as successful when all answered; each
// section is drawn from its endpoint's last good answer, so one busy endpoint leaves the rest
// of the page live.
async function refresh () {
  const started = Date.now()
  try {
    const answers = await Promise.allSettled(ENDPOINTS.map(getJson))
    const errors = []
    answers.forEach((a, i) => {
      if (a.status === 'fulfilled') last[ENDPOINTS[i].slice(4)] = a.value
      else if (a.reason instanceof ApiError) errors.push(a.reason)
      else errors.push(new ApiError(ENDPOINTS[i], String(a.reason)))
    })
    draw()
    if (errors.length === 0) {
      status.updated++
      status.lastOkMs = Date.now()
      status.error = null
      document.body.dataset.updated = String(status.updated)
    } else {
      status.error = describeErrors(errors)
    }
  } catch (e) {
    // A bug of this page or an answer of an unexpected shape: say so, keep polling.
    console.error(e)
    status.error = `page error: ${e.message}`
  }
  showStatus()
  setTimeout(refresh, Math.max(0, REFRESH_MS - (Date.now() - started)))
}

function draw () {
  if (last.mirrors) drawMirrors(last.mirrors, last.history)
  if (last.history) drawChart(last.history)
  if (last.topics) drawTopics(last.topics)
  if (last.groups) drawGroups(last.groups)
}

function showStatus () {
  const s = $('#status')
  const when = status.lastOkMs
    ? `updated ${Math.round((Date.now() - status.lastOkMs) / 1000)}s ago`
    : 'no answer yet'
  s.textContent = status.error ? `${status.error} — ${when}` : when
  s.className = status.error ? 'bad' : 'good'
}

// --- mirrors ----------------------------------------------------------------------------

function drawMirrors (data, history) {
  // What a failover now would lose: the last history point's figure.
  const loss = new Map()
  for (const h of history?.mirrors ?? []) {
    const p = h.points[h.points.length - 1]
    if (p) loss.set(h.mirror, p.lossRecords)
  }
  const cards = data.mirrors.slice().sort(byName('name')).map(m => mirrorCard(m, loss.get(m.name)))
  if (!cards.length) cards.push(el('p', { class: 'empty' }, 'No mirror on this broker.'))
  $('#mirror-cards').replaceChildren(...cards)
}

function stateBadges (counts) {
  const states = STATES.concat(Object.keys(counts).filter(s => !STATES.includes(s))).filter(s => counts[s])
  return states.map(s =>
    el('span', { class: `badge state-${s}`, data: { state: s, count: counts[s] } }, `${s} ${counts[s]}`))
}

function mirrorCard (m, loss) {
  const parts = m.partitions.slice().sort(byTopicPartition)
  const lag = parts.reduce((sum, p) => sum + (known(p.lag) ? p.lag : 0), 0)
  const lagMs = parts.reduce((max, p) => Math.max(max, known(p.lagMs) ? p.lagMs : 0), 0)
  const facts = [
    el('span', {}, 'failover now loses ',
      el('b', { class: loss > 0 ? 'warn' : '' }, fmtCount(loss)), ' records'),
    el('span', {}, 'lag ', el('b', {}, fmtCount(lag)), ' records, ', el('b', {}, fmtMs(lagMs))),
    m.throttledRate >= 0 && el('span', {}, 'throttled at ', el('b', {}, `${fmtBytes(m.throttledRate)}/s`)),
    (m.destinationThrottledMs > 0 || m.sourceThrottledMs > 0) &&
      el('span', {}, `held back ${fmtMs(m.destinationThrottledMs)} here, ` +
        `${fmtMs(m.sourceThrottledMs)} by the source`)
  ]
  return el('article', { class: 'mirror', data: { mirror: m.name, loss: known(loss) ? loss : -1 } },
    el('div', { class: 'mirror-head' },
      el('h3', {}, m.name),
      el('span', { class: 'source' }, 'from ', m.sourceBootstrapServers,
        m.sourceClusterId ? ` (cluster ${m.sourceClusterId})` : ''),
      el('span', { class: 'badges' }, stateBadges(m.partitionsByState || {}))),
    m.error && el('p', { class: 'mirror-error' }, m.error),
    syncErrors(m.sync || []),
    el('div', { class: 'facts' }, facts),
    el('div', { class: 'mirror-body' },
      el('div', { class: 'partitions-box' }, partitionTable(parts)),
      el('div', { class: 'sync' }, syncTable(m.sync || []), syncGroupTable(m.syncGroups || []))))
}

function partitionTable (parts) {
  const head = ['topic', 'partition', 'state', 'source HW', 'dest LEO', 'lag', 'lag time', 'retries',
    'bytes/s', 'fetch', 'last error']
  const numeric = new Set(head.slice(3, 10).concat('partition'))
  return el('table', { class: 'partitions' },
    el('thead', {}, el('tr', {}, head.map(h => el('th', { class: numeric.has(h) ? 'num' : '' }, h)))),
    el('tbody', {}, parts.length
      ? parts.map(p => el('tr', {
        class: `state-${p.state}`,
        data: { mirror: p.mirror, topic: p.topic, partition: p.partition, state: p.state, lag: p.lag }
      },
      td(p.topic), num(p.partition),
      el('td', {}, el('span', { class: `badge state-${p.state}` }, p.state)),
      num(fmtCount(p.sourceHighWatermark)), num(fmtCount(p.destinationLogEndOffset)),
      num(fmtCount(p.lag)), num(fmtMs(p.lagMs)), num(fmtCount(p.retries)),
      num(fmtBytes(p.bytesPerSecond)), num(fmtMs(p.fetchLatencyMs)), errorCell(p.lastError)))
      : emptyRow(head.length, 'no topic mirrored yet')))
}

// Compact, to fit beside the partitions; a failing task's error is shown above (syncErrors).
function syncTable (rows) {
  if (!rows.length) return null
  return el('table', { class: 'sync-tasks' },
    el('thead', {}, el('tr', {}, el('th', {}, 'sync'), el('th', { class: 'num' }, 'runs'),
      el('th', { class: 'num' }, 'failed'), el('th', {}, 'last success'),
      el('th', { class: 'num' }, 'took'), el('th', { class: 'num' }, 'changed'))),
    el('tbody', {}, rows.slice().sort(byName('kind')).map(r => el('tr', {
      class: failing(r) ? 'failing' : '', title: r.lastError || null, data: { kind: r.kind }
    },
    td(r.kind), num(fmtCount(r.runs)), num(fmtCount(r.failures)), td(ago(r.lastSuccessMs)),
    num(fmtUs(r.lastDurationUs)),
    num(fmtCount(r.changedTotal))))))
}

// A sync task whose last run failed.
const failing = r => r.lastErrorMs > 0 && r.lastErrorMs >= r.lastSuccessMs

function syncErrors (rows) {
  return rows.filter(failing).sort(byName('kind')).map(r =>
    el('p', { class: 'mirror-error' },
      `${r.kind} sync failing (${ago(r.lastErrorMs)}): ${r.lastError || `error ${r.lastErrorCode}`}`))
}

function syncGroupTable (rows) {
  if (!rows.length) return null
  return el('table', { class: 'sync-groups' },
    el('thead', {}, el('tr', {}, el('th', {}, 'group offsets'), el('th', {}, 'synced'),
      el('th', { class: 'num' }, 'offsets'), el('th', {}, 'note'))),
    el('tbody', {}, rows.slice().sort(byName('group')).map(r => el('tr', { data: { syncGroup: r.group } },
      // A share group's row says so: its numbers are start offsets, not committed ones.
      td(r.kind === 'share-groups' ? `${r.group} (share)` : r.group), td(ago(r.lastSyncedMs)),
      num(fmtCount(r.offsetsCommitted)),
      r.error
        ? errorCell(r.error)
        : r.activeOnDestination ? td('active here: not synced', 'warn') : td('')))))
}

// --- the lag chart ----------------------------------------------------------------------

function drawChart (history) {
  const box = $('#lag-chart')
  const plot = box.querySelector('.plot')
  const mirrors = (history.mirrors || []).slice().sort(byName('mirror'))
  // Mirrors are sampled together, but a mirror created a moment ago has fewer points: the x
  // axis is the union of the times, a mirror without a point there has a gap.
  const times = [...new Set(mirrors.flatMap(m => m.points.map(p => p.timeMs)))].sort((a, b) => a - b)
  const at = new Map(times.map((t, i) => [t, i]))
  const data = [times.map(t => t / 1000)]
  for (const m of mirrors) {
    const lag = new Array(times.length).fill(null)
    const lagS = new Array(times.length).fill(null)
    for (const p of m.points) {
      const i = at.get(p.timeMs)
      if (known(p.lag)) lag[i] = p.lag
      if (known(p.lagMs)) lagS[i] = p.lagMs / 1000
    }
    data.push(lag, lagS)
  }
  const key = JSON.stringify(mirrors.map(m => m.mirror))
  if (mirrors.length === 0) {
    if (chart) chart.destroy()
    chart = null
    chartKey = ''
    plot.replaceChildren(el('p', { class: 'empty' }, 'no mirror history yet'))
  } else if (!chart || key !== chartKey) {
    if (chart) chart.destroy()
    plot.replaceChildren()
    chart = new uPlot(chartOptions(mirrors), data, plot)
    chartKey = key
  } else {
    chart.setData(data)
  }
  box.dataset.points = String(times.length)
}

const chartWidth = () => Math.max(300, $('#lag-chart .plot').clientWidth)

function chartOptions (mirrors) {
  // Lag never goes below 0: keep 0 at the bottom instead of zooming into a flat line.
  const fromZero = (u, min, max) => [0, max > 0 ? max * 1.1 : 1]
  return {
    width: chartWidth(),
    height: CHART_HEIGHT,
    // At least a minute wide: a young history would otherwise get sub-second ticks.
    scales: {
      x: { time: true, range: (u, min, max) => [Math.min(min, max - 60), max] },
      records: { range: fromZero },
      seconds: { range: fromZero }
    },
    axes: [
      {},
      // Whole records: no ticks at 2.5.
      { scale: 'records', label: 'records', size: 60, incrs: WHOLE,
        values: (u, ticks) => ticks.map(fmtCount) },
      { scale: 'seconds', label: 'seconds', side: 1, size: 50, grid: { show: false } }
    ],
    // Per mirror, one color: the lag in records solid, in seconds dashed.
    series: [{}].concat(mirrors.flatMap((m, i) => {
      const stroke = COLORS[i % COLORS.length]
      return [
        { label: `${m.mirror} lag (records)`, scale: 'records', stroke, width: 2,
          value: (u, v) => fmtCount(v ?? -1) },
        { label: `${m.mirror} lag (s)`, scale: 'seconds', stroke, width: 1.5, dash: [6, 4],
          value: (u, v) => v == null ? '–' : `${v.toFixed(1)} s` }
      ]
    }))
  }
}

// --- topics and groups ------------------------------------------------------------------

function drawTopics (data) {
  const showInternal = $('#show-internal').checked
  const rows = data.topics.filter(t => showInternal || !t.internal).sort(byName('topic')).map(t => {
    const hw = t.partitions.reduce((s, p) => s + (known(p.highWatermark) ? p.highWatermark : 0), 0)
    const size = t.partitions.reduce((s, p) => s + (known(p.sizeBytes) ? p.sizeBytes : 0), 0)
    const data = { topic: t.topic, mirror: t.mirror ?? '', hw }
    return el('tr', { class: t.internal ? 'internal' : '', data },
      td(t.topic), num(t.partitions.length), td(t.mirror ?? '–'), num(fmtCount(hw)), num(fmtBytes(size)))
  })
  if (!rows.length) rows.push(emptyRow(5, 'no topic'))
  $('#topics tbody').replaceChildren(...rows)
}

function drawGroups (data) {
  const rows = []
  for (const g of data.groups.slice().sort(byName('group'))) {
    const offsets = (g.offsets || []).slice().sort(byTopicPartition)
    const lags = offsets.map(o => o.lag).filter(known)
    const unknown = offsets.length - lags.length
    const total = lags.length ? lags.reduce((a, b) => a + b, 0) : -1
    const open = openGroups.has(g.group)
    const toggle = el('button', {
      class: 'expand',
      'aria-expanded': String(open),
      title: 'offsets per partition',
      onclick: () => { open ? openGroups.delete(g.group) : openGroups.add(g.group); drawGroups(last.groups) }
    }, open ? '▾' : '▸')
    rows.push(el('tr', { class: 'group', data: { group: g.group, lag: total } },
      el('td', {}, offsets.length ? toggle : null, g.group, g.type === 'share' ? ' (share)' : ''),
      td(g.state), num(fmtCount(g.members)),
      num(fmtCount(total) + (unknown ? ` (+${unknown} unknown)` : ''))))
    // Always in the DOM (hidden while closed): the tests read them too.
    for (const o of offsets) {
      rows.push(el('tr', {
        class: 'offset', hidden: !open,
        data: { group: g.group, topic: o.topic, partition: o.partition, offset: o.currentOffset ?? o.startOffset, lag: o.lag }
      },
      el('td', { class: 'indent' }, `${o.topic} [${o.partition}]`),
      // A share group has no committed offset: its partitions start where it has finished.
      td(g.type === 'share' ? `starts at ${fmtCount(o.startOffset)}`
        : `at ${fmtCount(o.currentOffset)} of ${fmtCount(o.logEndOffset)}`), td(''), num(fmtCount(o.lag))))
    }
  }
  if (!rows.length) rows.push(emptyRow(4, 'no consumer group'))
  $('#groups tbody').replaceChildren(...rows)
}

// --- start ------------------------------------------------------------------------------

function start () {
  $('#broker').textContent = location.host
  $('#show-internal').addEventListener('change', () => { if (last.topics) drawTopics(last.topics) })
  window.addEventListener('resize', () => {
    if (chart) chart.setSize({ width: chartWidth(), height: CHART_HEIGHT })
  })
  setInterval(showStatus, 1000) // "updated Ns ago" keeps counting while a request hangs
  refresh()
}

start()
