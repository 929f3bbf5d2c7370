from django.urls import path

from . import apis

app_name = "accounts"

urlpatterns = [
    path("csrf/", apis.CsrfApi.as_view(), name="csrf"),
    path("signup/", apis.SignUpApi.as_view(), name="signup"),
    path("signin/", apis.SignInApi.as_view(), name="signin"),
    path("signout/", apis.SignOutApi.as_view(), name="signout"),
    path("password/", apis.PasswordChangeApi.as_view(), name="password"),
    path("email/", apis.EmailApi.as_view(), name="email"),
    path("email/verification/", apis.EmailVerificationSendApi.as_view(), name="email-verification"),
    path("email/verify/", apis.EmailVerifyApi.as_view(), name="email-verify"),
    path("delete/", apis.AccountDeleteApi.as_view(), name="delete"),
]
