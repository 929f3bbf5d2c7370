"""The few server-rendered pages `make run` needs: today's challenges, sign up, sign in, sign out.

The full browser client is a later piece of work; until then, play happens through the API
(its docs page at /api/docs/ works with the session these pages sign in).
"""

from __future__ import annotations

from django import forms
from django.contrib.auth import login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from games.selectors import challenges_for_day, local_today
from leaderboard.boards import Board
from leaderboard.selectors import leaderboard_page
from piramide_site.errors import ServiceError
from accounts.services import user_create


def home(request: HttpRequest) -> HttpResponse:
    today = local_today()
    rows = [
        {"challenge": c, "top": leaderboard_page(board=Board.for_challenge(c.pk), limit=10)}
        for c in challenges_for_day(date=today)
    ]
    return render(request, "frontend/home.html", {"today": today, "rows": rows})


class SignUpForm(forms.Form):
    username = forms.RegexField(r"^[\w.@+-]{3,40}$", max_length=40)
    display_name = forms.CharField(max_length=40, required=False, help_text="Shown on leaderboards; defaults to the username.")
    email = forms.EmailField(required=False)
    password = forms.CharField(widget=forms.PasswordInput)


def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = user_create(**form.cleaned_data)
        except ServiceError as error:
            form.add_error(None, error.message)
        else:
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect("frontend:home")
    return render(request, "frontend/signup.html", {"form": form})
