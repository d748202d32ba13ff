import { startAgent } from '../app.js';
import { loadConfig } from '../config.js';
import { parse, UsageError, type Io } from './args.js';

export async function serve(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { host: { type: 'string' }, port: { type: 'string' } });
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port debe ser un número entre 0 y 65535; se recibió "${values.port}".`);
  }
  const config = loadConfig({
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(values.host ? { host: values.host } : {}),
    ...(port !== undefined ? { port } : {}),
  });
  const agent = await startAgent(config);
  // Listened for before the line that says where it listens: a program that reads it and stops
  // Sello at once (tests, the startup benchmark) must not find Node's default, which kills.
  const signalled = new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  const tls = agent.tls();
  if (values.json) {
    io.out(
      JSON.stringify({
        base_url: agent.baseUrl,
        admin_url: agent.adminUrl,
        // CONTRACT §2: on an address beyond loopback, what a client checks the HTTPS certificate against.
        ...(tls
          ? { local_url: agent.localUrl, tls_fingerprint: tls.fingerprint, tls_cert_file: tls.certFile, tls_ca_file: tls.caFile ?? null, tls_ca_fingerprint: tls.caFingerprint ?? null, tls_names: tls.names }
          : {}),
      }),
    );
  } else {
    io.out(`Sello escucha en ${agent.baseUrl}`);
    if (tls) {
      io.out(`En este equipo, también sin TLS: ${agent.localUrl}`);
      io.out(`Huella SHA-256 del certificado TLS: ${tls.fingerprint}`);
      if (tls.caFile) io.out(`CA local que deben aceptar los otros equipos: ${tls.caFile} (SHA-256 ${tls.caFingerprint})`);
      io.out(`Nombres del certificado: ${tls.names.join(', ')}`);
    }
    io.out(`Administración (enlace de un solo uso): ${agent.adminUrl}`);
    io.out('Ctrl+C para detener.');
  }
  await signalled;
  await agent.stop();
  return 0;
}
