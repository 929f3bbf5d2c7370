from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import Follow, User
from .names import display_name_normalize, display_name_skeleton, display_name_taken_message
from .services import account_remove


class DisplayNameField:
    """For the admin's add and change forms: the display name is checked as at sign-up
    (accounts/names.py), and its skeleton kept in step with it."""

    cleaned_data: dict[str, Any]
    instance: User

    def clean_display_name(self) -> str:
        name = display_name_normalize(self.cleaned_data["display_name"])
        skeleton = display_name_skeleton(name)
        holder = User.objects.filter(display_name_skeleton=skeleton).exclude(pk=self.instance.pk).first()
        if holder is not None:
            raise ValidationError(display_name_taken_message(holder.display_name), code="taken")
        self.instance.display_name_skeleton = skeleton
        return name


class PlayerChangeForm(DisplayNameField, UserChangeForm):
    def clean_email(self) -> str:
        # a new address (case aside) is unverified, whoever sets it (accounts/verification.py)
        email: str = self.cleaned_data.get("email") or ""
        if email.strip().lower() != (self.initial.get("email") or "").strip().lower():
            self.instance.email_verified_at = None
        return email


class PlayerCreationForm(DisplayNameField, AdminUserCreationForm):
    display_name = forms.CharField(max_length=40)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    form = PlayerChangeForm
    add_form = PlayerCreationForm
    list_display = ("username", "display_name", "email", "email_verified_at", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email")
    readonly_fields = ("email_verified_at",)
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Piramide", {"fields": ("display_name", "email_verified_at")}))
    add_fieldsets = (*UserAdmin.add_fieldsets, ("Piramide", {"fields": ("display_name",)}))

    # Deleting here takes the same path as a player's own deletion (``account_remove``): the
    # scores leave the rank store's boards too, the games stay, the races it hosts pass on.
    def delete_model(self, request: HttpRequest, obj: User) -> None:
        account_remove(obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset:
            account_remove(user)


@admin.register(Follow)
class FollowAdmin(admin.ModelAdmin):
    list_display = ("follower", "followed", "created_at")
    search_fields = ("follower__display_name", "followed__display_name")
    raw_id_fields = ("follower", "followed")
    date_hierarchy = "created_at"
