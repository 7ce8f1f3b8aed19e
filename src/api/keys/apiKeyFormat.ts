import { createHash, randomBytes } from "node:crypto";

/** Prefix of every API key, so that leaked keys are easy to recognise and scan for. */
export const KEY_PREFIX = "svc_";

/** 32 random bytes (256 bits), base64url without padding: 43 characters. */
const SECRET_BYTES = 32;
const KEY_PATTERN = /^svc_[A-Za-z0-9_-]{43}$/;

export const generateApiKey = (): string => KEY_PREFIX + randomBytes(SECRET_BYTES).toString("base64url");

/** Whether a header value has the shape of one of our keys (checked before any lookup). */
export const isWellFormedApiKey = (value: string): boolean => KEY_PATTERN.test(value);

/**
 * SHA-256 of the key, hex. A plain (unsalted, fast) hash is enough: the key has
 * 256 bits of entropy, so there is nothing to brute-force, and lookups stay O(1).
 */
export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex");

/** Short id shown in listings and used to revoke. */
export const generateKeyId = (): string => `key_${randomBytes(8).toString("hex")}`;

/** The part of a key shown to operators: prefix plus 4 characters. */
export const displayPrefix = (key: string): string => key.slice(0, KEY_PREFIX.length + 4);
