from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import Follow, User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = ("username", "display_name", "email", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email")
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Piramide", {"fields": ("display_name",)}))
    add_fieldsets = (*UserAdmin.add_fieldsets, ("Piramide", {"fields": ("display_name",)}))


@admin.register(Follow)
class FollowAdmin(admin.ModelAdmin):
    list_display = ("follower", "followed", "created_at")
    search_fields = ("follower__display_name", "followed__display_name")
    raw_id_fields = ("follower", "followed")
    date_hierarchy = "created_at"
