/**
 * Bounds every text and integer from outside must respect before it reaches the
 * database: PostgreSQL refuses NUL in text and jsonb, an unpaired UTF-16 surrogate
 * has no UTF-8 encoding, and an `Int` column holds 32 bits.
 */

/** the largest value a PostgreSQL `integer` (Prisma `Int`) column holds */
export const MAX_INT32 = 2_147_483_647;
