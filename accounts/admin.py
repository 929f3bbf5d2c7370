from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class PlayerAdmin(UserAdmin):
    list_display = ("username", "display_name", "email", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email")
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Piramide", {"fields": ("display_name",)}))
    add_fieldsets = (*UserAdmin.add_fieldsets, ("Piramide", {"fields": ("display_name",)}))
