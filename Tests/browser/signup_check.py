#!/usr/bin/env python3
"""The sign-up page says the server's policy (GET /v1/server), in headless Chromium: against a
server started with `--signup closed`, the page says it takes no accounts and offers none (the
"Create account" tab disabled, its form never shown); a sign-up sent anyway is refused with
403 `signup_closed`.
  signup_check.py --base URL"""
import argparse
import os
import sys

from cdp import CheckFailed, SetupFailed
from journeylib import Person, call


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--base', required=True)
    ap.add_argument('--shots', default='Tests/artifacts/journey')
    a = ap.parse_args()
    os.makedirs(a.shots, exist_ok=True)
    say = lambda m: print('signup check: ' + m, flush=True)  # noqa: E731
    p = None
    try:
        p = Person('Visitor', a.base, 390, 844, 'light', a.shots, 20, say)
        p.open('/')
        p.wait('document.body.dataset.signup === "closed"', 'the closed policy read from GET /v1/server')
        text = p.text('#signup-policy')
        if 'does not take new accounts' not in text:
            raise CheckFailed('the page does not say sign-up is closed: %r' % text)
        if not p.eval('document.querySelector("#tab-signup").disabled'):
            raise CheckFailed('the "Create account" tab is offered on a closed server')
        p.click('#tab-signup')  # a disabled tab: nothing happens
        if p.visible('form#signup'):
            raise CheckFailed('the sign-up form shows on a closed server')
        p.shot('signup-closed')
        p.audit('signup-closed', True)
        status, reply = call(a.base, 'POST', '/v1/users', {'email': 'x@example.org', 'password': 'password-x', 'displayName': 'X'})
        if status != 403 or (reply or {}).get('error', {}).get('code') != 'signup_closed':
            raise CheckFailed('a sign-up on a closed server answered %s %s' % (status, reply))
        p.problems()
        say('a closed server says so and offers no sign-up: %r' % text)
        return 0
    except CheckFailed as e:
        print('signup check FAILED: %s' % e, file=sys.stderr)
        return 1
    except SetupFailed as e:
        print('signup check could not drive the browser: %s' % e, file=sys.stderr)
        return 2
    finally:
        if p:
            p.close()


if __name__ == '__main__':
    sys.exit(main())
