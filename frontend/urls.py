from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy
from django.views.i18n import JavaScriptCatalog, set_language

from . import installable, views

app_name = "frontend"

urlpatterns = [
    path("", views.home, name="home"),
    path("manifest.webmanifest", installable.manifest, name="manifest"),
    path("sw.js", installable.service_worker, name="service-worker"),
    path("offline/", installable.offline, name="offline"),
    path("rules/<str:preset>/", views.rules_page, name="rules"),
    path("calendar/", views.program_calendar, name="calendar"),
    path("signup/", views.signup, name="signup"),
    path("signin/", views.SignIn.as_view(), name="signin"),
    path("signout/", auth_views.LogoutView.as_view(), name="signout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(template_name="frontend/form.html", success_url="/"),
        name="password",
    ),
    path("password/reset/", views.PasswordResetRequest.as_view(), name="password-reset"),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(template_name="frontend/password_reset_sent.html"),
        name="password-reset-sent",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="frontend/password_reset_confirm.html",
            success_url=reverse_lazy("frontend:password-reset-done"),
        ),
        name="password-reset-confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(template_name="frontend/password_reset_done.html"),
        name="password-reset-done",
    ),
    path("profile/email/", views.email_change, name="email"),
    path("profile/email/verify/", views.email_verification_resend, name="email-verify-resend"),
    path("email/verify/<str:token>/", views.email_verify_page, name="email-verify"),
    path("profile/delete/", views.account_delete, name="account-delete"),
    path("challenges/<int:challenge_id>/play/", views.ranked_start, name="ranked-start"),
    path("challenges/<int:challenge_id>/practice/", views.practice_start, name="practice-start"),
    path("challenges/<int:challenge_id>/room/", views.room, name="room"),
    path("games/<int:game_id>/", views.game_page, name="game"),
    path("games/<int:game_id>/replay.json", views.game_replay, name="game-replay"),
    path("games/<int:game_id>/watch/", views.watch, name="watch"),
    path("leaderboards/", views.leaderboards, name="leaderboards"),
    path("profile/", views.profile, name="profile"),
    path("profile/link/reset/", views.follow_link_reset, name="follow-link-reset"),
    path("follows/", views.follow_add, name="follow-add"),
    path("follows/<int:player_id>/stop/", views.follow_stop, name="follow-stop"),
    path("follow/<str:token>/", views.follow_link, name="follow-link"),
    path("races/", views.race_new, name="race-new"),
    path("races/<str:code>/", views.race_page, name="race"),
    path("language/", set_language, name="set-language"),
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["frontend"]), name="jsi18n"),
]
