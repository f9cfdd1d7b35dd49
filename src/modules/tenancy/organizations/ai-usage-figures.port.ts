/**
 * An organization's AI use this UTC month, shown in its plan usage (extensions-v2 16.1). The ai-usage area owns the
 * metered calls and depends on this area, so it provides this port (in a global module) instead of this area
 * depending on it.
 */
export abstract class AiUsageFigures {
  abstract month(organizationId: string): Promise<{ requests: number; tokens: number }>;
}
