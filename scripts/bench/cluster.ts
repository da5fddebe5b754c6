import cluster from 'node:cluster'

/*
 * The service as BENCH_WORKERS `node:cluster` workers sharing one port, for
 * `npm run bench -- --only-registration --workers N`. An experiment of the benchmark's,
 * not a mode of the service: its metrics would be each worker's own. Each worker runs the real
 * entry point with the environment given; the primary only forwards SIGTERM and SIGINT, and ends
 * once every worker has.
 */
if (cluster.isPrimary) {
  const workers = Number(process.env.BENCH_WORKERS ?? 2)
  for (let i = 0; i < workers; i++) cluster.fork()
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    stopping = true
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal)
  }
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  cluster.on('exit', (worker, code) => {
    // A worker that ends on its own ends the run: the figures would be one worker's.
    if (!stopping) {
      console.error(`worker ${worker.process.pid} exited (${code}): stopping the others`)
      stop('SIGTERM')
    }
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(stopping ? 0 : 1)
  })
} else {
  await import('../../src/main')
}
