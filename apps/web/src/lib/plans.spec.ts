import { PLANS } from '@app/domain/limits';
import { plansWith, seatsLeft, seatsText } from './plans';

describe('plans', () => {
  it('counts seats against the plan, and says when it has no limit', () => {
    const pro = PLANS.pro.seats as number;
    expect(seatsText('pro', 2)).toBe(`2 of ${pro} seats used`);
    expect(seatsLeft('pro', 2)).toBe(pro - 2);
    expect(seatsLeft('pro', pro + 1)).toBe(0);
    expect(seatsText('growth', 1)).toBe('1 seat used (no limit on the growth plan)');
    expect(seatsLeft('growth', 1000)).toBeNull();
  });
  it('names the plans with a feature, in plan order', () => {
    expect(plansWith('auditLogs')).toBe('Growth, Team and Enterprise');
    expect(plansWith('sso')).toBe('Enterprise');
  });
});
