import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { invalidPayload } from './errors.js';
import { isObject, type Json, type JsonObject } from './json.js';

/**
 * The Cloud SQL Admin v1 message schema, read from the protos.json that ships with the installed
 * `@google-cloud/sql` client, so the server speaks exactly the messages the client encodes.
 *
 * The REST fallback client sends enums as numbers and asks for numbers back
 * (`$alt=json;enum-encoding=int`); other callers (curl, gcloud) use names. `decode` turns either
 * into names — the form the server keeps and filters on — and `encode` answers in whichever form the
 * request asked for.
 */

interface ProtoField {
  type: string;
  id: number;
  rule?: string;
  keyType?: string;
}

interface ProtoNode {
  fields?: Record<string, ProtoField>;
  values?: Record<string, number>;
  nested?: Record<string, ProtoNode>;
}

interface FieldInfo {
  jsonName: string;
  protoName: string;
  repeated: boolean;
  map: boolean;
  /** Fully qualified type name; undefined for scalars. */
  typeName: string | undefined;
}

interface MessageInfo {
  kind: 'message';
  fullName: string;
  /** Keyed by both the JSON (lowerCamel) and the proto (snake_case) name. */
  fields: Map<string, FieldInfo>;
}

interface EnumInfo {
  kind: 'enum';
  fullName: string;
  byName: Map<string, number>;
  byNumber: Map<number, string>;
}

const scalarTypes = new Set([
  'double',
  'float',
  'int32',
  'int64',
  'uint32',
  'uint64',
  'sint32',
  'sint64',
  'fixed32',
  'fixed64',
  'sfixed32',
  'sfixed64',
  'bool',
  'string',
  'bytes',
]);

export const SQL_PACKAGE = 'google.cloud.sql.v1';

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

export class CloudSqlSchema {
  private readonly nodes = new Map<string, ProtoNode>();
  private readonly types = new Map<string, MessageInfo | EnumInfo>();

  constructor(root: ProtoNode) {
    const walk = (node: ProtoNode, fullName: string) => {
      if (fullName) this.nodes.set(fullName, node);
      for (const [name, nested] of Object.entries(node.nested ?? {})) {
        walk(nested, fullName ? `${fullName}.${name}` : name);
      }
    };
    walk(root, '');
  }

  /** Reads the schema of the installed `@google-cloud/sql`. */
  static load(): CloudSqlSchema {
    const require = createRequire(import.meta.url);
    const file = require.resolve('@google-cloud/sql/build/protos/protos.json');
    return new CloudSqlSchema(JSON.parse(readFileSync(file, 'utf8')) as ProtoNode);
  }

  /** `json` (names or numbers for enums) as the server keeps it: enum names, unknown fields refused. */
  decode(typeName: string, json: Json, path: string): JsonObject {
    const decoded = this.decodeValue(this.qualify(typeName), json, path);
    return isObject(decoded) ? decoded : {};
  }

  /** `value` as the response JSON: enums as numbers when the caller asked for them, else names. */
  encode(typeName: string, value: JsonObject, numericEnums: boolean): JsonObject {
    const encoded = this.encodeValue(this.qualify(typeName), value, numericEnums);
    return isObject(encoded) ? encoded : {};
  }

  /** The number of an enum value of `enumName` (e.g. `SqlDatabaseVersion`), if it exists. */
  enumNumber(enumName: string, valueName: string): number | undefined {
    const info = this.info(this.qualify(enumName));
    return info?.kind === 'enum' ? info.byName.get(valueName) : undefined;
  }

  private qualify(typeName: string) {
    return typeName.includes('.') && this.nodes.has(typeName)
      ? typeName
      : `${SQL_PACKAGE}.${typeName}`;
  }

  private info(fullName: string): MessageInfo | EnumInfo | undefined {
    const cached = this.types.get(fullName);
    if (cached) return cached;
    const node = this.nodes.get(fullName);
    if (!node) return undefined;
    let info: MessageInfo | EnumInfo;
    if (node.values) {
      const byName = new Map(Object.entries(node.values));
      const byNumber = new Map<number, string>();
      for (const [name, number] of byName) if (!byNumber.has(number)) byNumber.set(number, name);
      info = { kind: 'enum', fullName, byName, byNumber };
    } else {
      const fields = new Map<string, FieldInfo>();
      for (const [jsonName, field] of Object.entries(node.fields ?? {})) {
        const typeName = scalarTypes.has(field.type)
          ? undefined
          : this.resolve(field.type, fullName);
        const fieldInfo: FieldInfo = {
          jsonName,
          protoName: snake(jsonName),
          repeated: field.rule === 'repeated',
          map: field.keyType !== undefined,
          typeName,
        };
        fields.set(jsonName, fieldInfo);
        fields.set(fieldInfo.protoName, fieldInfo);
      }
      info = { kind: 'message', fullName, fields };
    }
    this.types.set(fullName, info);
    return info;
  }

  /** Protobuf name resolution: innermost scope first, then outwards. */
  private resolve(typeName: string, scope: string): string | undefined {
    const name = typeName.replace(/^\./, '');
    for (let s = scope; s; s = s.includes('.') ? s.slice(0, s.lastIndexOf('.')) : '') {
      if (this.nodes.has(`${s}.${name}`)) return `${s}.${name}`;
    }
    return this.nodes.has(name) ? name : undefined;
  }

  private decodeValue(fullName: string, value: Json, path: string): Json {
    // Well-known types (wrappers, Timestamp, …) have their own JSON forms; keep them as sent.
    if (fullName.startsWith('google.protobuf.')) return value;
    const info = this.info(fullName);
    if (!info) return value;
    if (info.kind === 'enum') {
      if (typeof value === 'number') return info.byNumber.get(value) ?? value;
      if (typeof value === 'string' && info.byName.has(value)) return value;
      throw invalidPayload(
        `Invalid value at '${path}' (type.googleapis.com/${fullName}), ${JSON.stringify(value)}`,
      );
    }
    if (!isObject(value)) {
      throw invalidPayload(
        `Invalid value at '${path}' (type.googleapis.com/${fullName}), ${JSON.stringify(value)}`,
      );
    }
    const out: JsonObject = {};
    for (const [key, fieldValue] of Object.entries(value)) {
      const field = info.fields.get(key);
      if (!field) {
        throw invalidPayload(
          `Invalid JSON payload received. Unknown name ${JSON.stringify(key)} at '${path}': Cannot find field.`,
        );
      }
      if (fieldValue === null) continue;
      const fieldPath = `${path}.${field.protoName}`;
      out[field.jsonName] = this.decodeField(field, fieldValue, fieldPath);
    }
    return out;
  }

  private decodeField(field: FieldInfo, value: Json, path: string): Json {
    const typeName = field.typeName;
    if (!typeName) return value;
    if (field.map) {
      if (!isObject(value)) return value;
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, this.decodeValue(typeName, v, `${path}[${k}]`)]),
      );
    }
    if (field.repeated) {
      if (!Array.isArray(value)) {
        throw invalidPayload(`Invalid value at '${path}', expected a list`);
      }
      return value.map((v, i) => this.decodeValue(typeName, v, `${path}[${i}]`));
    }
    return this.decodeValue(typeName, value, path);
  }

  private encodeValue(fullName: string, value: Json, numericEnums: boolean): Json {
    if (fullName.startsWith('google.protobuf.')) return value;
    const info = this.info(fullName);
    if (!info) return value;
    if (info.kind === 'enum') {
      return numericEnums && typeof value === 'string' ? (info.byName.get(value) ?? value) : value;
    }
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, fieldValue] of Object.entries(value)) {
      const field = info.fields.get(key);
      const typeName = field?.typeName;
      if (!field || !typeName || fieldValue === null) {
        out[key] = fieldValue;
      } else if (field.map && isObject(fieldValue)) {
        out[key] = Object.fromEntries(
          Object.entries(fieldValue).map(([k, v]) => [
            k,
            this.encodeValue(typeName, v, numericEnums),
          ]),
        );
      } else if (field.repeated && Array.isArray(fieldValue)) {
        out[key] = fieldValue.map((v) => this.encodeValue(typeName, v, numericEnums));
      } else {
        out[key] = this.encodeValue(typeName, fieldValue, numericEnums);
      }
    }
    return out;
  }
}
