import { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
const Edit = z.object({ oldText: z.string(), newText: z.string(), replaceAll: z.boolean().default(false) });
const Node = z.lazy(() => z.object({ name: z.string(), children: z.array(Node).optional() }));
const cases = {
  basic: z.object({ query: z.string().min(1).max(100), limit: z.number().int().min(1).max(50).optional(), mode: z.enum(["fast", "careful"]).default("fast") }),
  edits: z.object({ path: z.string(), edits: z.array(Edit).min(1), dryRun: z.boolean().optional() }),
  formats: z.object({ email: z.string().email(), id: z.string().uuid(), when: z.string().datetime(), site: z.string().url(), ip: z.string().ip({ version: "v4" }) }),
  nullable: z.object({ note: z.string().nullable(), maybe: z.string().nullish(), lang: z.literal("en").optional() }),
  union: z.object({ value: z.union([z.string(), z.number()]), shape: z.discriminatedUnion("kind", [z.object({ kind: z.literal("circle"), r: z.number() }), z.object({ kind: z.literal("square"), side: z.number() })]) }),
  record: z.object({ counts: z.record(z.number()) }),
  passthrough: z.object({ name: z.string() }).passthrough(),
  tuple: z.object({ point: z.tuple([z.number(), z.number()]) }),
  intersection: z.object({ both: z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })) }),
  recursive: z.object({ tree: Node }),
  strictobj: z.object({ tags: z.array(z.string()).max(5), flags: z.set(z.string()).optional() }).strict(),
  any: z.object({ payload: z.any(), extra: z.unknown().optional() }),
};
const out = {};
for (const [name, schema] of Object.entries(cases)) out[name] = zodToJsonSchema(schema, { target: "jsonSchema7" });
console.log(JSON.stringify(out, null, 1));
