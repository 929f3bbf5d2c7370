from django.contrib.auth import views as auth_views
from django.urls import path

from . import views

app_name = "frontend"

urlpatterns = [
    path("", views.home, name="home"),
    path("signup/", views.signup, name="signup"),
    path("signin/", auth_views.LoginView.as_view(template_name="frontend/signin.html"), name="signin"),
    path("signout/", auth_views.LogoutView.as_view(), name="signout"),
    path(
        "password/",
        auth_views.PasswordChangeView.as_view(template_name="frontend/form.html", success_url="/"),
        name="password",
    ),
]
