// The hosted payment page's script (served from this server: CSP script-src 'self'), run after
// card-checks.js. 0. checks the card fields (no request while one is wrong); 1. asks the page for
// a checkout session; 2. sends the card to that session's fields endpoint (the card never goes
// anywhere else, nor into a URL); 3. pays the link with the session; then
// follows the answer: an approval page (3DS challenge, redirect method), the return URL, or a
// message. Every call carries the page token (CSRF) and is JSON (no cross-site form can send it).
// Wallets (Apple Pay, Google Pay) pay the same link with the wallet's token instead of a session.
(function () {
  'use strict';
  var form = document.getElementById('pay-form');
  if (!form) return;
  var status = document.getElementById('status');
  var base = form.getAttribute('data-base');
  var token = form.getAttribute('data-token');
  var checks = window.svcCardChecks;
  var each = function (list, fn) {
    Array.prototype.forEach.call(list, fn);
  };
  var msg = function (name) {
    return form.getAttribute('data-msg-' + name);
  };

  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'status error' : 'status';
  }
  // While a payment runs, no second one can start from this page.
  function busy(on) {
    each(form.querySelectorAll('button'), function (b) {
      b.disabled = on;
    });
  }
  function start() {
    busy(true);
    say(msg('processing'), false);
  }
  // Card inputs carry no name: without this script the browser submits nothing of them.
  function field(id) {
    var input = document.getElementById(id);
    return input ? String(input.value || '').trim() : '';
  }
  function call(method, url, body) {
    return fetch(url, {
      method: method,
      credentials: 'omit',
      headers: { 'content-type': 'application/json', 'x-payment-link-token': token },
      body: JSON.stringify(body),
    }).then(function (res) {
      return res.text().then(function (text) {
        var json = null;
        try {
          json = text ? JSON.parse(text) : null;
        } catch (e) {
          json = null;
        }
        return { status: res.status, body: json };
      });
    });
  }
  function refused(res, fallback) {
    if (res.status === 429) return msg('too-many');
    var detail = res.body && res.body.details && res.body.details[0];
    if (detail && detail.type === 'payment_link_not_payable') return msg('not-payable');
    return msg(fallback);
  }

  // The card checks (card-checks.js): a message next to each field in error, named by its
  // aria-describedby; aria-invalid; focus on the first. A field's message goes once it is corrected.
  var CARD_INPUTS = ['card-number', 'expiration-date', 'security-code'];
  function mark(id, problem) {
    var input = document.getElementById(id);
    var note = document.getElementById(id + '-error');
    if (!input || !note) return;
    if (problem) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    note.textContent = problem ? msg(problem) : '';
  }
  function flag(problems) {
    CARD_INPUTS.forEach(function (id) {
      var found = problems.filter(function (p) {
        return p.field === id;
      })[0];
      mark(id, found ? found.problem : null);
    });
  }
  function storedCard() {
    var stored = form.querySelector('input[name=stored_card]:checked');
    return stored && stored.value !== 'new' ? stored.value : null;
  }
  function checkForm() {
    return checks.checkCard(
      {
        stored: storedCard() !== null,
        number: field('card-number'),
        expiry: field('expiration-date'),
        code: field('security-code'),
      },
      new Date(),
    );
  }
  CARD_INPUTS.forEach(function (id) {
    var input = document.getElementById(id);
    if (!input) return;
    input.addEventListener('input', function () {
      if (input.getAttribute('aria-invalid') !== 'true') return;
      var still = checkForm().problems.some(function (p) {
        return p.field === id;
      });
      if (!still) mark(id, null);
    });
  });
  // A stored card needs no number nor expiry: their messages go when one is chosen.
  each(form.querySelectorAll('input[name=stored_card]'), function (choice) {
    choice.addEventListener('change', function () {
      if (storedCard()) {
        mark('card-number', null);
        mark('expiration-date', null);
      }
    });
  });
  function cardFields(card) {
    var stored = storedCard();
    if (stored) return { method: 'id', id: stored, security_code: card.security_code };
    return {
      method: 'card',
      number: card.number,
      expiration_date: card.expiration_date,
      security_code: card.security_code,
    };
  }

  function follow(res) {
    if (res.status !== 200) throw res;
    var outcome = res.body;
    if (outcome.next_url) {
      window.location.assign(outcome.next_url);
      return;
    }
    say(outcome.page_message, outcome.outcome !== 'paid');
    busy(false);
  }
  function failed(res) {
    say(res && res.status ? refused(res, 'failed') : msg('network'), true);
    busy(false);
  }
  // A card the server refused (its fields endpoint, or an expired stored card at payment): "check
  // your card", with the fields its answer names flagged as the page's own checks flag them.
  function cardFailed(res) {
    var card = res && res.status ? checks.cardRefusal(res.body) || (res.cardRefused ? [] : null) : null;
    if (!card) {
      failed(res);
      return;
    }
    flag(card);
    var first = card.filter(function (p) {
      return p.field;
    })[0];
    if (first) document.getElementById(first.field).focus();
    say(msg('invalid-card'), true);
    busy(false);
  }
  function walletFailed(res) {
    say(res && res.status ? refused(res, 'wallet-failed') : msg('wallet-failed'), true);
    busy(false);
  }
  function payWithToken(method, walletToken, suffix) {
    return call('POST', base + '/payments', {
      method: method,
      token: walletToken,
      card_suffix: /^\d{4}$/.test(suffix || '') ? suffix : undefined,
    });
  }

  // Redirect methods: the payment itself, then the method's approval page (and back to this page).
  each(form.querySelectorAll('button[data-method]'), function (other) {
    other.addEventListener('click', function () {
      start();
      call('POST', base + '/payments', { method: other.getAttribute('data-method') })
        .then(follow)
        .catch(failed);
    });
  });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var checked = checkForm();
    flag(checked.problems);
    if (checked.problems.length > 0) {
      say(msg('invalid-card'), true);
      document.getElementById(checked.problems[0].field).focus();
      return;
    }
    start();
    var card = cardFields(checked.card);
    var sessionId = null;
    call('POST', base + '/sessions', {})
      .then(function (res) {
        if (res.status !== 201) throw res;
        sessionId = res.body.id;
        return call('PUT', '/checkout/sessions/' + encodeURIComponent(sessionId) + '/fields', { payment_method: card });
      })
      .then(function (res) {
        if (res.status === 429) throw res;
        // The fields endpoint refused the card: "check your card", and the fields its answer names.
        if (res.status !== 204) throw { status: res.status, body: res.body, cardRefused: true };
        return call('POST', base + '/payments', {
          checkout_session_id: sessionId,
          cardholder_name: field('cardholder-name') || null,
        });
      })
      .then(follow)
      .catch(cardFailed);
  });

  // Sandbox: the simulated wallet sheet (a modal <dialog>: focus moves in, Escape closes). The
  // chosen test card becomes a real sandbox token made by the server, then the payment.
  var sheet = document.getElementById('wallet-sheet');
  var opener = null;
  function openSheet(button) {
    var method = button.getAttribute('data-wallet');
    opener = button;
    sheet.setAttribute('data-method', method);
    document.getElementById('wallet-sheet-title').textContent = sheet.getAttribute('data-title-' + method);
    each(sheet.querySelectorAll('li[data-only]'), function (item) {
      item.hidden = item.getAttribute('data-only') !== method;
    });
    sheet.showModal();
  }
  if (sheet) {
    sheet.querySelector('[data-sheet-cancel]').addEventListener('click', function () {
      sheet.close();
    });
    sheet.addEventListener('close', function () {
      if (opener && !opener.disabled) opener.focus();
    });
    each(sheet.querySelectorAll('button[data-card]'), function (cardButton) {
      cardButton.addEventListener('click', function () {
        var method = sheet.getAttribute('data-method');
        sheet.close();
        start();
        call('POST', base + '/wallet-tokens', { method: method, card: cardButton.getAttribute('data-card') })
          .then(function (res) {
            if (res.status !== 201) throw res;
            return payWithToken(method, res.body.token);
          })
          .then(follow, walletFailed)
          .catch(failed);
      });
    });
  }

  // Production Apple Pay: Safari's ApplePaySession, created in the click itself (a user gesture).
  function setUpApplePay(button) {
    var ApplePay = window.ApplePaySession;
    if (!ApplePay || !ApplePay.canMakePayments()) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var session = new ApplePay(3, JSON.parse(button.getAttribute('data-request')));
      start();
      session.onvalidatemerchant = function (event) {
        call('POST', base + '/apple-pay/session', { validation_url: event.validationURL })
          .then(function (res) {
            if (res.status !== 200) throw res;
            session.completeMerchantValidation(res.body);
          })
          .catch(function (res) {
            session.abort();
            walletFailed(res);
          });
      };
      session.onpaymentauthorized = function (event) {
        var suffix = /(\d{4})\s*$/.exec((event.payment.token.paymentMethod || {}).displayName || '');
        payWithToken('applepay', event.payment.token, suffix && suffix[1])
          .then(
            function (res) {
              session.completePayment(
                res.status === 200 && res.body.outcome !== 'declined'
                  ? ApplePay.STATUS_SUCCESS
                  : ApplePay.STATUS_FAILURE,
              );
              return res;
            },
            function (error) {
              session.completePayment(ApplePay.STATUS_FAILURE);
              throw error;
            },
          )
          .then(follow)
          .catch(failed);
      };
      session.oncancel = function () {
        if (status.className.indexOf('error') < 0) say('', false);
        busy(false);
      };
      session.begin();
    });
  }

  // Production Google Pay: Google's pay.js, loaded only on pages offering it (the CSP allows it
  // there only); the button shows once isReadyToPay says this browser can pay.
  function setUpGooglePay(button) {
    call('POST', base + '/google-pay/session', {}).then(
      function (res) {
        if (res.status !== 200) return;
        var script = document.createElement('script');
        script.src = 'https://pay.google.com/gp/p/js/pay.js';
        script.async = true;
        script.addEventListener('load', function () {
          readyGooglePay(button, res.body);
        });
        document.head.appendChild(script);
      },
      function () {},
    );
  }
  function readyGooglePay(button, session) {
    var client = new window.google.payments.api.PaymentsClient({ environment: session.environment });
    var request = session.payment_data_request;
    var methods = request.allowedPaymentMethods.map(function (m) {
      return { type: m.type, parameters: m.parameters };
    });
    client
      .isReadyToPay({
        apiVersion: request.apiVersion,
        apiVersionMinor: request.apiVersionMinor,
        allowedPaymentMethods: methods,
      })
      .then(
        function (answer) {
          if (!answer.result) return;
          button.hidden = false;
          button.addEventListener('click', function () {
            start();
            client
              .loadPaymentData(request)
              .then(
                function (data) {
                  var method = data.paymentMethodData;
                  return payWithToken(
                    'googlepay',
                    method.tokenizationData.token,
                    method.info && method.info.cardDetails,
                  ).then(follow, failed);
                },
                function (error) {
                  if (error && error.statusCode === 'CANCELED') {
                    say('', false);
                    busy(false);
                  } else walletFailed(null);
                },
              )
              .catch(failed);
          });
        },
        function () {},
      );
  }

  var wallets = form.querySelector('.wallets');
  if (wallets) {
    var sandbox = wallets.getAttribute('data-wallet-mode') === 'sandbox';
    each(wallets.querySelectorAll('button[data-wallet]'), function (button) {
      if (sandbox)
        button.addEventListener('click', function () {
          openSheet(button);
        });
      else if (button.getAttribute('data-wallet') === 'applepay') setUpApplePay(button);
      else setUpGooglePay(button);
    });
  }
})();
