/** `count` distinct card numbers that pass the Luhn check (a card-testing run's list): 16 digits from `prefix`. */
export function luhnCards(count: number, prefix = '400012'): string[] {
  const cards: string[] = [];
  for (let i = 0; i < count; i++) {
    const body = prefix + String(i).padStart(15 - prefix.length, '0');
    cards.push(body + checkDigit(body));
  }
  return cards;
}

function checkDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i]);
    if (i % 2 === 0) d *= 2;
    if (d > 9) d -= 9;
    sum += d;
  }
  return (10 - (sum % 10)) % 10;
}
