"""The pages of the site.  Thin: each reads through a selector or calls one service, then renders.

Play itself happens in the browser (static/frontend/js/), over the play socket and the REST API.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from accounts import selectors as account_selectors
from accounts.selectors import account_of
from accounts.services import (
    follow_create,
    follow_delete,
    guest_create,
    guest_sign_up,
    user_create,
    user_delete,
    user_follow_token_reset,
)
from accounts.verification import email_verification_send, email_verify, user_email_set
from games import selectors as game_selectors
from games import services as game_services
from games.engine import PRESETS
from games.models import DailyChallenge, Game
from games.rotation import variant_of_the_day
from leaderboard import selectors as board_selectors
from leaderboard.boards import Board
from plumbing import limits
from plumbing.device import origin_of
from plumbing.errors import ServiceError, Throttled
from plumbing.throttles import client_address

from . import selectors
from .forms import AccountDeleteForm, EmailForm, SignInForm, SignUpForm, display_name_taken_message
from .rules import layout_drawing, rules_sentences


def home(request: HttpRequest) -> HttpResponse:
    today = game_selectors.local_today()
    variant = variant_of_the_day(today)
    context = {
        "today": today,
        "variant": {"preset": variant, "label": selectors.preset_label(variant)} if variant else None,
        "rows": selectors.home_rows(player=request.user),
        "seconds_left": selectors.seconds_to_next_day(),
        "streaks": board_selectors.player_streaks(player_id=request.user.pk)
        if request.user.is_authenticated and not _is_guest(request.user)
        else None,
    }
    return render(request, "frontend/home.html", context)


BACKEND = "accounts.backends.LockoutModelBackend"


def _is_guest(user: Any) -> bool:
    return bool(getattr(user, "guest", False))


def player_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """``login_required``, and a guest is sent to sign up first: races, follows and the profile
    are for players with an account (docs/fairplay.md, *Guests*)."""

    @login_required
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if _is_guest(request.user):
            messages.info(request, _("Sign up to do that: your game of today comes with you."))
            return redirect(f"{reverse('frontend:signup')}?next={request.get_full_path()}")
        return view(request, *args, **kwargs)

    return checked


def _claimed(request: HttpRequest, guest: Any, player: Any) -> None:
    """After signing up or in: the guest's games of today are the player's now; say what was kept."""
    claim = game_services.guest_games_claim(guest=guest, player=player)
    if claim.kept:
        messages.success(
            request,
            ngettext(
                "Your game as a guest is yours now.", "Your %(n)s games as a guest are yours now.", len(claim.kept)
            )
            % {"n": len(claim.kept)},
        )
    for game in claim.left:
        messages.warning(
            request,
            _(
                "You had already played %(variant)s today with this account: that game counts, not the one you played as a guest."
            )
            % {"variant": selectors.preset_label(game.challenge.preset)},
        )


def rules_page(request: HttpRequest, preset: str) -> HttpResponse:
    """A preset's rules, written from the engine's rule set, with a drawing of its layout."""
    if preset not in PRESETS:
        raise Http404
    rules = PRESETS[preset]
    context = {
        "preset": preset,
        "label": selectors.preset_label(preset),
        "sentences": rules_sentences(rules),
        "drawing": layout_drawing(rules),
        "presets": [{"preset": name, "label": selectors.preset_label(name)} for name in PRESETS],
    }
    return render(request, "frontend/rules.html", context)


def program_calendar(request: HttpRequest) -> HttpResponse:
    """The program of the coming days: presets only, nothing of any deal."""

    def named(preset: str) -> dict[str, str]:
        return {"preset": preset, "label": selectors.preset_label(preset)}

    days = [
        {
            "date": day["date"],
            "daily": [named(name) for name in day["presets"] if name != day["variant_of_the_day"]],
            "variant": named(day["variant_of_the_day"]) if day["variant_of_the_day"] else None,
        }
        for day in game_selectors.program_calendar()
    ]
    return render(request, "frontend/calendar.html", {"days": days, "today": game_selectors.local_today()})


def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    guest = account_of(request) if _is_guest(request.user) else None
    if request.method == "POST" and form.is_valid():
        try:
            user = guest_sign_up(guest=guest, **form.cleaned_data) if guest else user_create(**form.cleaned_data)
        except ServiceError as error:
            taken = error.extra.get("taken_display_name")
            form.add_error(None, display_name_taken_message(taken) if taken else error.message)
        else:
            login(request, user, backend=BACKEND)
            if guest:
                _claimed(request, user, user)
            if user.email:
                _verification_send(request, user)
            return redirect(_next_or(request, reverse("frontend:home")))
    return render(request, "frontend/signup.html", {"form": form, "guest": guest})


class SignIn(auth_views.LoginView):
    """Django's sign-in; a guest who signs in keeps the games of today it played (``_claimed``)."""

    template_name = "frontend/signin.html"
    authentication_form = SignInForm

    def form_valid(self, form: Any) -> HttpResponse:
        guest = self.request.user if _is_guest(self.request.user) else None
        response = super().form_valid(form)
        if guest is not None and guest.pk != form.get_user().pk:
            _claimed(self.request, guest, form.get_user())
        return response


def _next_or(request: HttpRequest, default: str) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


# ----------------------------------------------------------------- account recovery


class PasswordResetRequest(auth_views.PasswordResetView):
    """Django's reset by e-mail, limited per address and per e-mail address before any mail is
    sent, so nobody can fill a player's inbox; the page says the same whether or not an account
    has that address."""

    template_name = "frontend/password_reset.html"
    email_template_name = "frontend/email/password_reset.txt"
    subject_template_name = "frontend/email/password_reset_subject.txt"
    success_url = reverse_lazy("frontend:password-reset-sent")

    def form_valid(self, form: Any) -> HttpResponse:
        email = form.cleaned_data["email"].strip().lower()
        verdict = limits.hits(
            [limits.key("reset", "ip", client_address(self.request)), limits.key("reset", "email", email)],
            [limits.Rate.parse(settings.PASSWORD_RESETS_PER_IP), limits.Rate.parse(settings.PASSWORD_RESETS_PER_EMAIL)],
        )
        if not verdict.allowed:
            minutes = max(1, math.ceil(verdict.retry_after / 60))
            form.add_error(
                None,
                ngettext(
                    "Too many reset requests: try again in %(minutes)s minute.",
                    "Too many reset requests: try again in %(minutes)s minutes.",
                    minutes,
                )
                % {"minutes": minutes},
            )
            return self.form_invalid(form)
        return super().form_valid(form)


@player_required
def email_change(request: HttpRequest) -> HttpResponse:
    """The address a password reset and the verification link are sent to; a new one is
    unverified until its link is followed; empty leaves the account without recovery."""
    player = account_of(request)
    form = EmailForm(request.POST or None, initial={"email": player.email})
    if request.method == "POST" and form.is_valid():
        changed = user_email_set(user=player, email=form.cleaned_data["email"])
        messages.success(request, _("Your e-mail address is saved."))
        if changed and player.email:
            _verification_send(request, player)
        return redirect("frontend:profile")
    return render(request, "frontend/form.html", {"form": form, "title": _("E-mail for account recovery")})


def _site_root(request: HttpRequest) -> str:
    return request.build_absolute_uri("/")


def _verification_send(request: HttpRequest, user: Any) -> bool:
    """Mail a verification link and say so, or say why not, in the player's language."""
    try:
        sent = email_verification_send(user=user, base_url=_site_root(request))
    except Throttled as error:
        minutes = max(1, math.ceil(float(error.extra.get("retry_after", 60)) / 60))
        messages.error(
            request,
            ngettext(
                "Too many verification e-mails asked for: try again in %(minutes)s minute.",
                "Too many verification e-mails asked for: try again in %(minutes)s minutes.",
                minutes,
            )
            % {"minutes": minutes},
        )
        return False
    except ServiceError as error:
        if error.extra.get("reason") == "already_verified":
            messages.info(request, _("Your e-mail address is already verified."))
        else:
            messages.error(request, _("Your account has no e-mail address to verify: add one first."))
        return False
    messages.info(
        request,
        _("We sent a verification link to %(email)s: open it to verify the address.") % {"email": sent.email},
    )
    return True


@require_POST
@player_required
def email_verification_resend(request: HttpRequest) -> HttpResponse:
    _verification_send(request, request.user)
    return redirect(reverse("frontend:profile") + "#account")


def email_verify_page(request: HttpRequest, token: str) -> HttpResponse:
    """Where a verification link lands: a GET only shows a button (mail scanners open links), the
    POST verifies."""
    if request.method != "POST":
        return render(request, "frontend/email_verify.html", {"token": token})
    try:
        email_verify(token=token)
    except ServiceError as error:
        texts = {
            "expired": _("This verification link has expired: ask for a new one from your profile."),
            "address_changed": _(
                "This link was sent to an address your account no longer has: ask for a new one from your profile."
            ),
        }
        message = texts.get(str(error.extra.get("reason")), _("This verification link is not valid."))
        return render(request, "frontend/refused.html", {"message": message}, status=error.status_code)
    messages.success(request, _("Your e-mail address is verified: your scores rank on the boards."))
    return redirect(reverse("frontend:profile") + "#account" if request.user.is_authenticated else "frontend:home")


@player_required
def account_delete(request: HttpRequest) -> HttpResponse:
    """Delete one's own account, confirmed with the password; staff accounts cannot."""
    if request.user.is_staff or request.user.is_superuser:
        message = _("Staff accounts cannot be deleted from here: ask another administrator.")
        return render(request, "frontend/refused.html", {"message": message}, status=403)
    form = AccountDeleteForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user_delete(user=account_of(request), password=form.cleaned_data["password"])
        except ServiceError:
            form.add_error("password", _("The password is wrong: your account was not deleted."))
        else:
            logout(request)
            messages.success(request, _("Your account is deleted. Your scores have left the boards."))
            return redirect("frontend:home")
    context = {
        "form": form,
        "title": _("Delete your account"),
        "warning": _(
            "Your scores leave every board, your games stay in the day's statistics with no name, and "
            "whom you follow and who follows you are forgotten. This cannot be undone."
        ),
        "submit": _("Delete my account"),
        "danger": True,
    }
    return render(request, "frontend/form.html", context)


# ----------------------------------------------------------------- play


def _start(request: HttpRequest, start: Callable[[], game_services.Play]) -> HttpResponse:
    try:
        play = start()
    except ServiceError as error:
        return render(request, "frontend/refused.html", {"message": error.message}, status=error.status_code)
    return redirect("frontend:game", game_id=play.game.pk)


@require_POST
def ranked_start(request: HttpRequest, challenge_id: int) -> HttpResponse:
    """Play a challenge: a visitor without an account plays it as a guest, made here and signed in
    (``accounts.services.guest_create``), so today's deal is one tap from the home page."""
    origin = origin_of(request)
    if not request.user.is_authenticated:
        try:
            guest = guest_create(address=client_address(request))
        except Throttled as error:
            minutes = max(1, math.ceil(error.extra.get("retry_after", 60) / 60))
            message = ngettext(
                "Too many guest games from your address: sign up or sign in to play, or try again in %(minutes)s minute.",
                "Too many guest games from your address: sign up or sign in to play, or try again in %(minutes)s minutes.",
                minutes,
            ) % {"minutes": minutes}
            return render(request, "frontend/refused.html", {"message": message}, status=error.status_code)
        login(request, guest, backend=BACKEND)
    return _start(
        request,
        lambda: game_services.game_ranked_start(challenge_id=challenge_id, player=request.user, origin=origin)[0],
    )


@require_POST
@login_required
def practice_start(request: HttpRequest, challenge_id: int) -> HttpResponse:
    return _start(request, lambda: game_services.game_practice_start(challenge_id=challenge_id, player=request.user))


def _game_or_404(game_id: int) -> Game:
    game = Game.objects.select_related("challenge").filter(pk=game_id).first()
    if game is None:
        raise Http404
    return game


@login_required
def game_page(request: HttpRequest, game_id: int) -> HttpResponse:
    game = _game_or_404(game_id)
    if game.player_id != request.user.pk:
        return redirect("frontend:watch", game_id=game.pk)
    challenge = game.challenge
    config = {
        "game": game_selectors.game_view(game),
        "challenge": {
            "id": challenge.pk,
            "par": challenge.par,
            "preset": challenge.preset,
            "preset_label": selectors.preset_label(challenge.preset),
            "day_number": selectors.day_number(challenge.date),
        },
        "urls": {"replay": f"/games/{game.pk}/replay.json"},
    }
    context = {
        "game": game,
        "challenge": challenge,
        "config": config,
        "label": config["challenge"]["preset_label"],
        "fairness": selectors.fairness(challenge),
        # what the result offers next: today's other challenges, and when the next deal comes
        "others": [row for row in selectors.home_rows(player=request.user) if row["challenge"].pk != challenge.pk],
        "seconds_left": selectors.seconds_to_next_day(),
    }
    return render(request, "frontend/play.html", context)


@login_required
def game_replay(request: HttpRequest, game_id: int) -> JsonResponse:
    game = _game_or_404(game_id)
    if game.player_id != request.user.pk:
        raise Http404
    return JsonResponse(selectors.game_replay(game=game))


def watch(request: HttpRequest, game_id: int) -> HttpResponse:
    game = Game.objects.select_related("challenge", "player").filter(pk=game_id).first()
    if game is None:
        raise Http404
    return render(
        request, "frontend/watch.html", {"game": game, "label": selectors.preset_label(game.challenge.preset)}
    )


def room(request: HttpRequest, challenge_id: int) -> HttpResponse:
    challenge = DailyChallenge.objects.filter(pk=challenge_id).first()
    if challenge is None:
        raise Http404
    context = {
        "challenge": challenge,
        "label": selectors.preset_label(challenge.preset),
        "fairness": selectors.fairness(challenge),
    }
    return render(request, "frontend/room.html", context)


# ----------------------------------------------------------------- boards and people


def leaderboards(request: HttpRequest) -> HttpResponse:
    kind = request.GET.get("board", "today")
    if kind not in ("today", "week", "all"):
        kind = "today"
    view = "following" if request.GET.get("view") == "following" else "everyone"
    today = game_selectors.local_today()
    challenges = game_selectors.challenges_for_day(date=today)
    presets = [c.preset for c in challenges] or list(PRESETS)[:1]
    preset = request.GET.get("preset", presets[0])
    if preset not in PRESETS:
        preset = presets[0]
    challenge = next((c for c in challenges if c.preset == preset), None)
    if kind == "today":
        board = Board.for_challenge(challenge.pk) if challenge else None
    elif kind == "week":
        board = Board.for_week(preset, today)
    else:
        board = Board.all_time(preset)
    signed_in = request.user.is_authenticated
    page: dict[str, Any] = {"entries": [], "total": 0}
    me = None
    if board and view == "following" and signed_in:
        page = board_selectors.leaderboard_following(board=board, viewer_id=account_of(request).pk, limit=100)
        me = page["me"]
    elif board and view == "everyone":
        page = board_selectors.leaderboard_page(board=board, limit=100)
        if signed_in:
            mine = board_selectors.leaderboard_around(board=board, player_id=account_of(request).pk, radius=0)
            ranked = mine["entries"][0] if mine["entries"] else None
            me = board_selectors.own_entry(board=board, player_id=account_of(request).pk, ranked=ranked)
    followed = set(account_selectors.followed_ids(follower_id=account_of(request).pk)) if signed_in else set()
    context = {
        "kind": kind,
        "view": view,
        "preset": preset,
        "presets": [(p, selectors.preset_label(p)) for p in presets],
        "challenge": challenge,
        "page": page,
        "my_rank": me["rank"] if me else None,
        #: My row again under the table when the page does not reach it.
        "me_below": me
        if me and me["rank"] and all(e["player_id"] != me["player_id"] for e in page["entries"])
        else None,
        #: My scores here that do not rank, and why (only I see them).
        "withheld": me["withheld"] if me else [],
        "followed": followed,
        "follows_anyone": bool(followed),
        "histogram": selectors.score_histogram(challenge=challenge)
        if challenge and kind == "today" and view == "everyone"
        else None,
    }
    return render(request, "frontend/leaderboards.html", context)


@player_required
def profile(request: HttpRequest) -> HttpResponse:
    player = account_of(request)
    history = board_selectors.player_history(player_id=player.pk, limit=60)
    for row in history:
        row["label"] = selectors.preset_label(row["preset"])
    streaks = board_selectors.player_streaks(player_id=player.pk)
    context = {
        "streaks": streaks,
        "preset_streaks": [{**asdict(s), "label": selectors.preset_label(s.preset)} for s in streaks.presets],
        "history": history,
        "months": selectors.played_calendar(player_id=player.pk),
        "share_url": request.build_absolute_uri(reverse("frontend:follow-link", args=[player.follow_token])),
        "following": account_selectors.follows_list(follower_id=player.pk),
        "follow_limit": settings.FOLLOWS_PER_USER,
    }
    return render(request, "frontend/profile.html", context)


# ----------------------------------------------------------------- following


def _back(request: HttpRequest, default: str) -> HttpResponse:
    return redirect(_next_or(request, default))


def _follow(request: HttpRequest, **target: str) -> bool:
    """Follow through the one service, and tell the player what happened in their language."""
    try:
        follow, created = follow_create(follower=account_of(request), **target)
    except ServiceError as error:
        if error.code == "not_found" and "display_name" in target:
            text = _("No player is called %(name)s.") % {"name": target["display_name"].strip()}
        elif error.code == "not_found":
            text = _("This follow link does not lead to any player any more.")
        elif error.code == "not_allowed":
            cap = settings.FOLLOWS_PER_USER
            text = ngettext(
                "You already follow %(n)s player, the most one account can: stop following someone first.",
                "You already follow %(n)s players, the most one account can: stop following someone first.",
                cap,
            ) % {"n": cap}
        else:
            text = _("You cannot follow yourself: your own row is always on your boards.")
        messages.error(request, text)
        return False
    name = follow.followed.display_name
    if created:
        messages.success(request, _("You now follow %(name)s.") % {"name": name})
    else:
        messages.info(request, _("You already follow %(name)s.") % {"name": name})
    return True


@require_POST
@player_required
def follow_add(request: HttpRequest) -> HttpResponse:
    """Follow by display name: the boards' Follow buttons and the profile's form."""
    name = request.POST.get("display_name", "").strip()
    if name:
        _follow(request, display_name=name)
    else:
        messages.error(request, _("Write the display name of the player to follow."))
    return _back(request, reverse("frontend:profile"))


@require_POST
@player_required
def follow_stop(request: HttpRequest, player_id: int) -> HttpResponse:
    try:
        stopped = follow_delete(follower=account_of(request), followed_id=player_id)
    except ServiceError:
        raise Http404 from None
    if stopped:
        messages.success(request, _("You no longer follow this player."))
    return _back(request, reverse("frontend:profile"))


def follow_link(request: HttpRequest, token: str) -> HttpResponse:
    """Where a share link lands: who it is, and a button to follow them (a GET changes nothing)."""
    owner = account_selectors.user_by_follow_token(token=token)
    if owner is None:
        raise Http404
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{reverse('frontend:signin')}?next={request.path}")
        if _follow(request, token=token):
            return redirect(f"{reverse('frontend:leaderboards')}?view=following")
        return redirect(request.path)
    signed_in = request.user.is_authenticated
    context = {
        "owner": owner,
        "is_me": signed_in and owner.pk == request.user.pk,
        "already": signed_in and owner.pk in account_selectors.followed_ids(follower_id=account_of(request).pk),
    }
    return render(request, "frontend/follow.html", context)


@require_POST
@player_required
def follow_link_reset(request: HttpRequest) -> HttpResponse:
    user_follow_token_reset(user=account_of(request))
    messages.success(request, _("Your share link is new: the old one no longer works."))
    return redirect("frontend:profile")


# ----------------------------------------------------------------- races


@player_required
def race_new(request: HttpRequest) -> HttpResponse:
    presets = [(p, selectors.preset_label(p)) for p in PRESETS]
    return render(request, "frontend/race_new.html", {"presets": presets})


@player_required
def race_page(request: HttpRequest, code: str) -> HttpResponse:
    labels = {preset: selectors.preset_label(preset) for preset in PRESETS}
    return render(request, "frontend/race.html", {"code": code, "labels": labels})
