import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { Readable } from 'node:stream';
import type { ReportStorage } from './report-storage-types.ts';

export interface S3Settings {
  bucket: string;
  region: string;
  /** A compatible store's address (MinIO, ...); null: AWS. */
  endpoint: string | null;
  /** Null: the SDK's default credential chain (environment, instance role). */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  prefix: string;
  forcePathStyle: boolean;
}

/**
 * Report files in an S3-compatible bucket (AWS SDK v3). Uploads are multipart from the stream
 * (5 MiB parts, at most 2 in memory), so a file of any size is written in constant memory; a
 * failed upload is aborted, leaving no object.
 */
export class S3ReportStorage implements ReportStorage {
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
    });
  }

  private keyOf(key: string): string {
    return `${this.settings.prefix}${key}`;
  }

  async put(key: string, body: Readable): Promise<number> {
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.settings.bucket,
        Key: this.keyOf(key),
        Body: body,
        ContentType: 'text/csv',
        ContentEncoding: 'gzip',
      },
      queueSize: 2,
      partSize: 5 * 1024 * 1024,
      leavePartsOnError: false,
    });
    await upload.done();
    const head = await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }));
    return Number(head.ContentLength ?? 0);
  }

  async get(key: string): Promise<Readable | null> {
    try {
      const result = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }),
      );
      return (result.Body as Readable | undefined) ?? null;
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.keyOf(key) }));
  }
}
