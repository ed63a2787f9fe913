/** What the organization's plan allows, as the settings pages say it. Pure; the numbers are the API's own (libs/domain). */
import { PLANS, PLAN_NAMES, type PlanLimits, type PlanName } from '@app/domain/limits';

const title = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);
const and = (names: string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

/** The plans with a feature, for a sentence: "Growth, Team and Enterprise". */
export const plansWith = (feature: { [K in keyof PlanLimits]: PlanLimits[K] extends boolean ? K : never }[keyof PlanLimits]) =>
  and(PLAN_NAMES.filter((p) => PLANS[p][feature]).map(title));

/** Seats still free on the plan; null when it sets no limit. */
export function seatsLeft(plan: PlanName, used: number): number | null {
  const seats = PLANS[plan].seats;
  return seats === null ? null : Math.max(0, seats - used);
}

/** "2 of 3 seats used", or "5 seats used (no limit on the growth plan)". */
export function seatsText(plan: PlanName, used: number): string {
  const seats = PLANS[plan].seats;
  return seats === null
    ? `${used} seat${used === 1 ? '' : 's'} used (no limit on the ${plan} plan)`
    : `${used} of ${seats} seat${seats === 1 ? '' : 's'} used`;
}
