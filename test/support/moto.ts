import { type ChildProcess, spawn } from "node:child_process";
import { AwsClient } from "aws4fetch";

/**
 * A real moto_server (S3 with SigV4 checks) on an ephemeral port, for integration tests and
 * benches. Authentication is switched on after three setup calls: an IAM user, its access key and
 * an allow-all S3 policy. From then on every request must be signed with that key, so a broken
 * signature fails like it would against S3 or R2.
 */
export interface MotoServer {
  endpoint: string;
  /** moto_server's process id (benches read its CPU time from /proc). */
  pid: number;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Creates a bucket (signed, like every later call). */
  createBucket(name: string): Promise<void>;
  stop(): Promise<void>;
}

const SETUP_CALLS = 3;

/**
 * moto_server's entry point with one fix: werkzeug's `request.url` decodes "%2F" back to "/"
 * (uri_to_iri) and moto checks SigV4 against that URL, so every signed request whose query holds
 * a "/" (an S3 list prefix) failed. Real S3 checks the query as sent; so does this launcher.
 */
const LAUNCHER = [
  "import sys, werkzeug.sansio.utils as u",
  "u.uri_to_iri = lambda uri, *a, **k: uri",
  "from moto.server import main",
  "sys.exit(main(sys.argv[1:]))",
].join("\n");
const REGION = "us-east-1";

/**
 * Starts moto_server. `auth: false` gives an open server (anonymous reads and writes): the stand-in
 * for a public bucket or CDN origin; the returned keys are then placeholders it does not check.
 */
export async function startMoto(options: { auth?: boolean } = {}): Promise<MotoServer> {
  const auth = options.auth ?? true;
  const env = { ...process.env };
  if (auth) env.INITIAL_NO_AUTH_ACTION_COUNT = String(SETUP_CALLS);
  else delete env.INITIAL_NO_AUTH_ACTION_COUNT;
  const child = spawn(process.env.MOTO_PYTHON ?? "python3", ["-c", LAUNCHER, "-H", "127.0.0.1", "-p", "0"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    const endpoint = await waitForAddress(child);
    const { accessKeyId, secretAccessKey } = auth
      ? await createUserKey(endpoint)
      : { accessKeyId: "anonymous", secretAccessKey: "anonymous" };
    const s3 = new AwsClient({ accessKeyId, secretAccessKey, region: REGION, service: "s3" });
    return {
      endpoint,
      pid: child.pid ?? 0,
      region: REGION,
      accessKeyId,
      secretAccessKey,
      async createBucket(name) {
        const res = await s3.fetch(`${endpoint}/${name}`, { method: "PUT" });
        if (!res.ok) throw new Error(`moto: create bucket ${name}: ${res.status} ${await res.text()}`);
      },
      stop: () => stopChild(child),
    };
  } catch (err) {
    await stopChild(child);
    throw err;
  }
}

function waitForAddress(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let log = "";
    const timer = setTimeout(() => reject(new Error(`moto_server did not start:\n${log}`)), 30_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString("utf8");
      const match = /Running on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`moto_server exited (${code}):\n${log}`));
    });
  });
}

/** The three unauthenticated setup calls (IAM query API); signed anyway so moto routes them to IAM. */
async function createUserKey(endpoint: string): Promise<{ accessKeyId: string; secretAccessKey: string }> {
  const iam = new AwsClient({
    accessKeyId: "setup",
    secretAccessKey: "setup",
    region: REGION,
    service: "iam",
  });
  const call = async (params: Record<string, string>) => {
    const body = new URLSearchParams({ ...params, Version: "2010-05-08" });
    const res = await iam.fetch(`${endpoint}/`, {
      method: "POST",
      body: body.toString(),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`moto IAM ${params.Action}: ${res.status} ${text}`);
    return text;
  };
  await call({ Action: "CreateUser", UserName: "lightedge-test" });
  const key = await call({ Action: "CreateAccessKey", UserName: "lightedge-test" });
  const policy = { Version: "2012-10-17", Statement: [{ Effect: "Allow", Action: "s3:*", Resource: "*" }] };
  await call({
    Action: "PutUserPolicy",
    UserName: "lightedge-test",
    PolicyName: "s3-all",
    PolicyDocument: JSON.stringify(policy),
  });
  const accessKeyId = /<AccessKeyId>([^<]+)<\/AccessKeyId>/.exec(key)?.[1];
  const secretAccessKey = /<SecretAccessKey>([^<]+)<\/SecretAccessKey>/.exec(key)?.[1];
  if (!accessKeyId || !secretAccessKey) throw new Error(`moto: no access key in ${key}`);
  return { accessKeyId, secretAccessKey };
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill("SIGTERM");
  });
}
