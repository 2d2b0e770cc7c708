import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient, type Prisma } from "@/lib/generated/prisma/client";

/**
 * The host CRM's dashboards, written as host code writes them: the generated
 * Prisma client of the shared schema on its own connection pool, separate from
 * the lead intake service's client. Tests compare what these read with what the
 * API answered.
 */
export function hostClient(connectionString: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString, max: 2 }) });
}

/** What a dashboard shows of one workflow record. */
const dashboardRecord = {
  leadCustomer: true,
  referrer: true, // the Introducer: a source account or a person
  assignedAgent: true,
  preferredAgent: true,
  auditEntries: { orderBy: { id: "asc" } },
} satisfies Prisma.ReferralInclude;

export type DashboardRecord = Prisma.ReferralGetPayload<{ include: typeof dashboardRecord }>;

const newestFirst = [
  { createdAt: { sort: "desc", nulls: "last" } },
  { id: "desc" },
] satisfies Prisma.ReferralOrderByWithRelationInput[];

/** Manager dashboard: every workflow record, newest first, optionally only those of one status. */
export function managerView(db: PrismaClient, filter: { status?: string } = {}): Promise<DashboardRecord[]> {
  return db.referral.findMany({
    where: filter.status === undefined ? {} : { status: filter.status },
    include: dashboardRecord,
    orderBy: newestFirst,
  });
}

/** Agent dashboard: the records assigned to one user, looked up by the user's numeric id as the host's pages do. */
export function agentView(db: PrismaClient, userId: number): Promise<DashboardRecord[]> {
  return db.referral.findMany({
    where: { assignedAgentId: userId },
    include: dashboardRecord,
    orderBy: newestFirst,
  });
}
