import type { ClientSession, MongoClient, TransactionOptions, WriteConcernSettings } from 'mongodb';

/**
 * Run `work` in a transaction with snapshot reads and the configured write concern. The driver
 * retries the whole callback on TransientTransactionError (e.g. a write conflict with a racing
 * append), so `work` must read what it decides on inside the transaction.
 */
export async function inTransaction<T>(
  client: MongoClient,
  writeConcern: WriteConcernSettings,
  work: (session: ClientSession) => Promise<T>,
): Promise<T> {
  const options: TransactionOptions = {
    readConcern: { level: 'snapshot' },
    writeConcern,
    readPreference: 'primary',
  };
  const session = client.startSession();
  try {
    return await session.withTransaction(() => work(session), options);
  } finally {
    await session.endSession();
  }
}
