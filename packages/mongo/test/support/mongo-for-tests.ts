import { DryMongoBinary, MongoMemoryReplSet } from 'mongodb-memory-server';

export type MongoForTests =
  | { available: true; uri: string; source: string }
  | { available: false; reason: string };

/** Where mongodb-memory-server downloads from unless MONGOMS_DOWNLOAD_MIRROR says otherwise. */
const DEFAULT_DOWNLOAD_HOST = 'https://fastdl.mongodb.org';
/** A download host that does not answer this fast is taken as unreachable: CI must not wait on it. */
const REACHABILITY_TIMEOUT_MS = 3_000;
/** Downloading (~100 MB) and starting a replica set, on a machine that can. */
const START_TIMEOUT_MS = 300_000;

/**
 * MONGODB_URI when set. Otherwise a one-node mongodb-memory-server replica set, when its binary is
 * cached or its download host answers within 3 s; otherwise the reason, for the skipped suites'
 * names. Where the host cannot be reached (as on the project's build machines) this costs at most
 * those 3 s, once per run.
 */
export async function findMongoForTests(): Promise<{ mongo: MongoForTests; stop: () => Promise<void> }> {
  const nothingToStop = async () => {};
  const uri = process.env.MONGODB_URI;
  if (uri) return { mongo: { available: true, uri, source: 'MONGODB_URI' }, stop: nothingToStop };
  const cached = await DryMongoBinary.locateBinary(await DryMongoBinary.generateOptions()).catch(
    () => undefined,
  );
  if (cached === undefined) {
    const host = process.env.MONGOMS_DOWNLOAD_MIRROR ?? DEFAULT_DOWNLOAD_HOST;
    const unreachable = await unreachableReason(host);
    if (unreachable !== null) {
      return {
        mongo: {
          available: false,
          reason: `mongodb-memory-server cannot download its MongoDB binary from ${host} (${unreachable})`,
        },
        stop: nothingToStop,
      };
    }
  }
  try {
    const replicaSet = await withTimeout(
      MongoMemoryReplSet.create({ replSet: { count: 1, storageEngine: 'wiredTiger' } }),
      START_TIMEOUT_MS,
    );
    return {
      mongo: { available: true, uri: replicaSet.getUri(), source: 'mongodb-memory-server' },
      stop: async () => {
        await replicaSet.stop();
      },
    };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return {
      mongo: { available: false, reason: `mongodb-memory-server could not start a replica set (${message})` },
      stop: nothingToStop,
    };
  }
}

async function unreachableReason(host: string): Promise<string | null> {
  try {
    await fetch(host, { method: 'HEAD', signal: AbortSignal.timeout(REACHABILITY_TIMEOUT_MS) });
    return null;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no replica set within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
