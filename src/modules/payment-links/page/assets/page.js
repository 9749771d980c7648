// The hosted payment page's only script (served from this server: CSP script-src 'self').
// 1. asks the page for a checkout session; 2. sends the card to that session's fields endpoint
// (the card never goes anywhere else, nor into a URL); 3. pays the link with the session; then
// follows the answer: an approval page (3DS challenge, redirect method), the return URL, or a
// message. Every call carries the page token (CSRF) and is JSON (no cross-site form can send it).
(function () {
  'use strict';
  var form = document.getElementById('pay-form');
  if (!form) return;
  var status = document.getElementById('status');
  var button = form.querySelector('button[type=submit]');
  var base = form.getAttribute('data-base');
  var token = form.getAttribute('data-token');

  function say(text, isError) {
    status.textContent = text;
    status.className = isError ? 'status error' : 'status';
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
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        return { status: res.status, body: json };
      });
    });
  }
  function refused(res) {
    if (res.status === 429) return form.getAttribute('data-msg-too-many');
    var detail = res.body && res.body.details && res.body.details[0];
    if (detail && detail.type === 'payment_link_not_payable') return form.getAttribute('data-msg-not-payable');
    return form.getAttribute('data-msg-failed');
  }
  function cardFields() {
    var stored = form.querySelector('input[name=stored_card]:checked');
    var code = field('security-code');
    if (stored && stored.value !== 'new') return { method: 'id', id: stored.value, security_code: code || null };
    var expiry = field('expiration-date').replace(/\s+/g, '').replace(/^(\d{2})(\d{2})$/, '$1/$2');
    return { method: 'card', number: field('card-number').replace(/[\s-]+/g, ''), expiration_date: expiry, security_code: code || null };
  }

  function follow(res) {
    if (res.status !== 200) throw res;
    var outcome = res.body;
    if (outcome.next_url) { window.location.assign(outcome.next_url); return; }
    say(outcome.page_message, outcome.outcome !== 'paid');
    button.disabled = false;
  }
  function failed(res) {
    say(res && res.status ? refused(res) : form.getAttribute('data-msg-network'), true);
    button.disabled = false;
  }

  // Redirect methods: the payment itself, then the method's approval page (and back to this page).
  Array.prototype.forEach.call(form.querySelectorAll('button[data-method]'), function (other) {
    other.addEventListener('click', function () {
      button.disabled = true;
      say(form.getAttribute('data-msg-processing'), false);
      call('POST', base + '/payments', { method: other.getAttribute('data-method') }).then(follow).catch(failed);
    });
  });

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    say(form.getAttribute('data-msg-processing'), false);
    var card = cardFields();
    var sessionId = null;
    call('POST', base + '/sessions', {})
      .then(function (res) {
        if (res.status !== 201) throw res;
        sessionId = res.body.id;
        return call('PUT', '/checkout/sessions/' + encodeURIComponent(sessionId) + '/fields', { payment_method: card });
      })
      .then(function (res) {
        if (res.status === 429) throw res;
        if (res.status !== 204) throw { status: 400, body: { page_message: form.getAttribute('data-msg-invalid-card') } };
        return call('POST', base + '/payments', { checkout_session_id: sessionId, cardholder_name: field('cardholder-name') || null });
      })
      .then(follow)
      .catch(failed);
  });
})();
