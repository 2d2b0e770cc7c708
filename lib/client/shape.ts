/**
 * Tolerant reading of a success body: the types and required properties the document states are checked, and
 * anything more (a field a newer server adds) is kept as it came, so an additive change breaks no deployed client.
 */
export interface Shape {
  type?: string[];
  required?: Record<string, Shape>;
  items?: Shape;
  anyOf?: Shape[];
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "integer":
      return Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return typeof value === type;
  }
}

/** The first way `value` departs from `shape`, as "path: what is wrong", or null when it holds all it must. */
export function departure(value: unknown, shape: Shape, path = "body"): string | null {
  if (shape.anyOf) {
    return shape.anyOf.some((branch) => departure(value, branch, path) === null)
      ? null
      : `${path}: not any of its documented forms`;
  }
  if (shape.type && !shape.type.some((type) => hasType(value, type))) return `${path}: not ${shape.type.join(" or ")}`;
  if (shape.required && hasType(value, "object")) {
    const object = value as Record<string, unknown>;
    for (const [name, property] of Object.entries(shape.required)) {
      if (!(name in object)) return `${path}.${name}: missing`;
      const found = departure(object[name], property, `${path}.${name}`);
      if (found) return found;
    }
  }
  if (shape.items && Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = departure(item, shape.items, `${path}.${index}`);
      if (found) return found;
    }
  }
  return null;
}
