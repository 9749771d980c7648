// The hosted payment page's card checks, run in the buyer's browser before any request; pure (no
// DOM), loaded before page.js and unit-tested in Node (card-checks.test.ts). The server checks the
// card again (the fields endpoint: the scheme's lengths, Luhn, expiry) and `cardRefusal` reads its
// answer. A problem's name is also the name of its message on the form (data-msg-<problem>).
(function (root) {
  'use strict';

  function luhnValid(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i++) {
      var digit = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    return sum % 10 === 0;
  }

  // Digits and spaces only (as printed on the card), 12 to 19 digits, and the Luhn check digit.
  function checkNumber(raw) {
    var value = String(raw || '').trim();
    if (value === '') return { problem: 'number-required' };
    // Spaces and dashes are how people group the digits as printed on the card (and autofill may add them).
    if (!/^[0-9 -]+$/.test(value)) return { problem: 'number-format' };
    var digits = value.replace(/[ -]/g, '');
    if (digits.length < 12 || digits.length > 19 || !luhnValid(digits)) return { problem: 'number-invalid' };
    return { value: digits };
  }

  // MM/YY (also MMYY, M/YY and MM/YYYY, which autofill may give); a card is valid through the last
  // day of its month, in UTC as the server counts it. `now` is the clock (a Date).
  function checkExpiry(raw, now) {
    var value = String(raw || '').replace(/\s+/g, '');
    if (value === '') return { problem: 'expiry-required' };
    var parts = /^([0-9]{2})([0-9]{2})$/.exec(value) || /^([0-9]{1,2})\/([0-9]{2}|20[0-9]{2})$/.exec(value);
    if (!parts) return { problem: 'expiry-format' };
    var month = Number(parts[1]);
    var year = 2000 + (Number(parts[2]) % 100);
    if (month < 1 || month > 12) return { problem: 'expiry-month' };
    if (year * 12 + month < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1) return { problem: 'expiry-past' };
    return { value: (month < 10 ? '0' : '') + month + '/' + String(year).slice(2) };
  }

  // 3 or 4 digits. A stored card may be paid without one (`required` false).
  function checkCode(raw, required) {
    var value = String(raw || '').trim();
    if (value === '') return required ? { problem: 'code-required' } : { value: null };
    return /^[0-9]{3,4}$/.test(value) ? { value: value } : { problem: 'code-invalid' };
  }

  /**
   * Every check of the form, in the order of its fields. `input`: {stored (a stored card is chosen),
   * number, expiry, code}. Answers {problems: [{field, problem}], card} where field is the input's id
   * and card the values to send (only when there is no problem).
   */
  function checkCard(input, now) {
    var checks = input.stored
      ? [['security-code', checkCode(input.code, false)]]
      : [
          ['card-number', checkNumber(input.number)],
          ['expiration-date', checkExpiry(input.expiry, now)],
          ['security-code', checkCode(input.code, true)],
        ];
    var problems = [];
    var values = {};
    checks.forEach(function (check) {
      if (check[1].problem) problems.push({ field: check[0], problem: check[1].problem });
      else values[check[0]] = check[1].value;
    });
    if (problems.length > 0) return { problems: problems, card: null };
    if (input.stored) return { problems: [], card: { security_code: values['security-code'] } };
    return {
      problems: [],
      card: {
        number: values['card-number'],
        expiration_date: values['expiration-date'],
        security_code: values['security-code'],
      },
    };
  }

  var FIELDS = { number: 'card-number', expiration_date: 'expiration-date', security_code: 'security-code' };

  function refusalOf(name, type) {
    var field = Object.prototype.hasOwnProperty.call(FIELDS, name) ? FIELDS[name] : null;
    if (name === 'number') return { field: field, problem: 'number-invalid' };
    if (name === 'expiration_date' || type === 'card_expired')
      return { field: field, problem: type === 'card_expired' ? 'expiry-past' : 'expiry-format' };
    if (name === 'security_code') return { field: field, problem: 'code-invalid' };
    return /^card_/.test(type) ? { field: null, problem: 'number-invalid' } : null;
  }

  /**
   * The card problems in an error answer of the server: a 400 whose details point at the card
   * (`/payment_method/number`, type `card_number_luhn`; `card_expired`, also of a stored card) or a
   * 422 whose `loc` names a card field. Null when the answer is about something else.
   */
  function cardRefusal(body) {
    var found = [];
    var details = body && Array.isArray(body.details) ? body.details : [];
    details.forEach(function (d) {
      var pointer = typeof d.pointer === 'string' ? d.pointer.split('/') : [];
      var problem = refusalOf(pointer[1] === 'payment_method' ? pointer[2] : null, String(d.type || ''));
      if (problem) found.push(problem);
    });
    var invalid = body && Array.isArray(body.detail) ? body.detail : [];
    invalid.forEach(function (d) {
      var loc = Array.isArray(d.loc) ? d.loc : [];
      var problem = loc[1] === 'payment_method' ? refusalOf(loc[2], '') : null;
      if (problem) found.push(problem);
    });
    return found.length > 0 ? found : null;
  }

  root.svcCardChecks = {
    luhnValid: luhnValid,
    checkNumber: checkNumber,
    checkExpiry: checkExpiry,
    checkCode: checkCode,
    checkCard: checkCard,
    cardRefusal: cardRefusal,
  };
})(typeof window !== 'undefined' ? window : globalThis);
