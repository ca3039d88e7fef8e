/**
 * IMEIs for emulated trackers: 14 digits and the Luhn check digit, as every real IMEI has, from
 * a reporting-body prefix no real manufacturer uses for trackers here ("35999") so an emulated
 * device is never mistaken for a real one in a shared registry.
 */
const EMULATED_PREFIX = '35999';

export function luhnCheckDigit(digits: string): number {
  let sum = 0;
  // From the right, every second digit of the 14 (the ones next to the check digit) is doubled.
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}

export function isValidImei(imei: string): boolean {
  return /^\d{15}$/.test(imei) && luhnCheckDigit(imei.slice(0, 14)) === Number(imei[14]);
}

/** A stable IMEI for emulated device number `serial` (0 – 999 999 999). */
export function emulatedImei(serial: number): string {
  if (!Number.isSafeInteger(serial) || serial < 0 || serial > 999_999_999) throw new RangeError(`serial ${serial}`);
  const body = `${EMULATED_PREFIX}${String(serial).padStart(9, '0')}`;
  return `${body}${luhnCheckDigit(body)}`;
}
